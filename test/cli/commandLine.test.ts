import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommandLineError, parseCommandLine, type ParsedCommandLine } from '../../src/cli/commandLine.js';
import { FLAG_DEFINITIONS } from '../../src/cli/flags.js';
import { PORTICO_VERSION } from '../../src/cli/version.js';

function run(argv: readonly string[]): ParsedCommandLine {
  const result = parseCommandLine(argv);
  assert.equal(result.kind, 'run');
  return result;
}

function rejects(argv: readonly string[], message: RegExp): void {
  assert.throws(
    () => parseCommandLine(argv),
    (error: unknown) => {
      assert.ok(error instanceof CommandLineError);
      assert.equal(error.exitCode, 2);
      assert.match(error.message, message);
      return true;
    },
  );
}

// Every flag pkg/flags/flags.go registers, apart from --version.
const INGRESS_NGINX_FLAGS = [
  'annotations-prefix',
  'apiserver-host',
  'bucket-factor',
  'certificate-authority',
  'configmap',
  'controller-class',
  'deep-inspect',
  'default-backend-service',
  'default-server-port',
  'default-ssl-certificate',
  'disable-catch-all',
  'disable-full-test',
  'disable-leader-election',
  'disable-svc-external-name',
  'disable-sync-events',
  'dynamic-configuration-retries',
  'election-id',
  'election-ttl',
  'enable-annotation-validation',
  'enable-metrics',
  'enable-ssl-chain-completion',
  'enable-ssl-passthrough',
  'enable-topology-aware-routing',
  'exclude-socket-metrics',
  'health-check-path',
  'health-check-timeout',
  'healthz-host',
  'healthz-port',
  'http-port',
  'https-port',
  'ingress-class',
  'ingress-class-by-name',
  'internal-logger-address',
  'kubeconfig',
  'length-buckets',
  'max-buckets',
  'maxmind-edition-ids',
  'maxmind-license-key',
  'maxmind-mirror',
  'maxmind-retries-count',
  'maxmind-retries-timeout',
  'metrics-per-host',
  'metrics-per-undefined-host',
  'monitor-max-batch-size',
  'post-shutdown-grace-period',
  'profiler-address',
  'profiler-port',
  'profiling',
  'publish-service',
  'publish-status-address',
  'report-node-internal-ip-address',
  'report-status-classes',
  'shutdown-grace-period',
  'size-buckets',
  'ssl-passthrough-proxy-port',
  'status-port',
  'status-update-interval',
  'stream-port',
  'sync-period',
  'sync-rate-limit',
  'tcp-services-configmap',
  'time-buckets',
  'udp-services-configmap',
  'update-status',
  'update-status-on-shutdown',
  'validating-webhook',
  'validating-webhook-certificate',
  'validating-webhook-key',
  'watch-ingress-without-class',
  'watch-namespace',
  'watch-namespace-selector',
];

describe('flag table', () => {
  it("declares the 71 ingress-nginx flags plus --version, -v and Portico's own, once each", () => {
    assert.equal(INGRESS_NGINX_FLAGS.length, 71);
    const names = FLAG_DEFINITIONS.map((d) => d.name);
    assert.equal(new Set(names).size, names.length, 'duplicate flag name');
    assert.deepEqual([...names].sort(), [...INGRESS_NGINX_FLAGS, 'version', 'v', 'manifests', 'nginx-prefix'].sort());
  });

  it('marks exactly the flags Portico acts on as implemented', () => {
    const implemented = FLAG_DEFINITIONS.filter((d) => d.implemented).map((d) => d.name);
    assert.deepEqual(implemented.sort(), [
      'annotations-prefix',
      'apiserver-host',
      'certificate-authority',
      'configmap',
      'controller-class',
      'deep-inspect',
      'default-backend-service',
      'default-server-port',
      'default-ssl-certificate',
      'disable-catch-all',
      'disable-full-test',
      'disable-leader-election',
      'disable-svc-external-name',
      'disable-sync-events',
      'dynamic-configuration-retries',
      'election-id',
      'election-ttl',
      'enable-annotation-validation',
      'enable-metrics',
      'enable-ssl-passthrough',
      'enable-topology-aware-routing',
      'exclude-socket-metrics',
      'health-check-path',
      'health-check-timeout',
      'healthz-host',
      'healthz-port',
      'http-port',
      'https-port',
      'ingress-class',
      'ingress-class-by-name',
      'kubeconfig',
      'length-buckets',
      'manifests',
      'maxmind-edition-ids',
      'metrics-per-host',
      'metrics-per-undefined-host',
      'monitor-max-batch-size',
      'nginx-prefix',
      'post-shutdown-grace-period',
      'profiler-address',
      'profiler-port',
      'profiling',
      'publish-service',
      'publish-status-address',
      'report-node-internal-ip-address',
      'report-status-classes',
      'shutdown-grace-period',
      'size-buckets',
      'ssl-passthrough-proxy-port',
      'status-port',
      'status-update-interval',
      'sync-period',
      'sync-rate-limit',
      'tcp-services-configmap',
      'time-buckets',
      'udp-services-configmap',
      'update-status',
      'update-status-on-shutdown',
      'v',
      'validating-webhook',
      'validating-webhook-certificate',
      'validating-webhook-key',
      'version',
      'watch-ingress-without-class',
      'watch-namespace',
      'watch-namespace-selector',
    ]);
  });
});

describe('defaults', () => {
  const { flags, explicitlySet, warnings } = run([]);

  it('match ingress-nginx for every kind of flag', () => {
    // string
    assert.equal(flags.ingressClass, 'nginx');
    assert.equal(flags.controllerClass, 'k8s.io/ingress-nginx');
    assert.equal(flags.annotationsPrefix, 'nginx.ingress.kubernetes.io');
    assert.equal(flags.electionId, 'ingress-controller-leader');
    assert.equal(flags.internalLoggerAddress, '127.0.0.1:11514');
    assert.equal(flags.maxmindEditionIds, 'GeoLite2-City,GeoLite2-ASN');
    assert.equal(flags.healthCheckPath, '/healthz');
    assert.equal(flags.watchNamespace, '');
    // bool
    assert.equal(flags.profiling, true);
    assert.equal(flags.updateStatus, true);
    assert.equal(flags.updateStatusOnShutdown, true);
    assert.equal(flags.deepInspect, true);
    assert.equal(flags.enableAnnotationValidation, true);
    assert.equal(flags.metricsPerHost, true);
    assert.equal(flags.enableMetrics, false);
    assert.equal(flags.watchIngressWithoutClass, false);
    // int
    assert.equal(flags.httpPort, 80);
    assert.equal(flags.httpsPort, 443);
    assert.equal(flags.defaultServerPort, 8181);
    assert.equal(flags.healthzPort, 10254);
    assert.equal(flags.statusPort, 10246);
    assert.equal(flags.streamPort, 10247);
    assert.equal(flags.profilerPort, 10245);
    assert.equal(flags.sslPassthroughProxyPort, 442);
    assert.equal(flags.healthCheckTimeout, 10);
    assert.equal(flags.statusUpdateInterval, 60);
    assert.equal(flags.postShutdownGracePeriod, 10);
    assert.equal(flags.shutdownGracePeriod, 0);
    assert.equal(flags.dynamicConfigurationRetries, 15);
    assert.equal(flags.monitorMaxBatchSize, 10000);
    assert.equal(flags.maxmindRetriesCount, 1);
    assert.equal(flags.v, 0);
    // uint32, float
    assert.equal(flags.maxBuckets, 100);
    assert.equal(flags.syncRateLimit, 0.3);
    assert.equal(flags.bucketFactor, 0);
    // duration, in milliseconds
    assert.equal(flags.electionTtl, 30_000);
    assert.equal(flags.syncPeriod, 0);
    assert.equal(flags.maxmindRetriesTimeout, 0);
    // ip, lists
    assert.equal(flags.profilerAddress, '127.0.0.1');
    assert.deepEqual(flags.excludeSocketMetrics, []);
    assert.deepEqual(flags.timeBuckets, [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    assert.deepEqual(flags.lengthBuckets, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    assert.deepEqual(flags.sizeBuckets, [10, 100, 1e3, 1e4, 1e5, 1e6, 1e7]);
    // Portico's own
    assert.equal(flags.manifests, '');
  });

  it('has one property per table row', () => {
    assert.equal(Object.keys(flags).length, FLAG_DEFINITIONS.length);
  });

  it('counts as not set and warns about nothing', () => {
    assert.equal(explicitlySet.size, 0);
    assert.deepEqual(warnings, []);
  });
});

describe('Go/pflag syntax', () => {
  it('reads --flag=value and --flag value', () => {
    assert.equal(run(['--watch-namespace=team-a']).flags.watchNamespace, 'team-a');
    assert.equal(run(['--watch-namespace', 'team-a']).flags.watchNamespace, 'team-a');
    assert.equal(run(['--ingress-class=']).flags.ingressClass, '');
    assert.equal(run(['--watch-namespace-selector=env=prod']).flags.watchNamespaceSelector, 'env=prod');
  });

  it('gives a non-boolean flag the next argument even when it looks like a flag', () => {
    assert.equal(run(['--ingress-class', '--weird']).flags.ingressClass, '--weird');
    assert.equal(run(['--shutdown-grace-period', '-5']).flags.shutdownGracePeriod, -5);
  });

  it('reads booleans as --flag, --flag=true and --flag=false, with strconv.ParseBool spellings', () => {
    assert.equal(run(['--watch-ingress-without-class']).flags.watchIngressWithoutClass, true);
    assert.equal(run(['--watch-ingress-without-class=true']).flags.watchIngressWithoutClass, true);
    assert.equal(run(['--watch-ingress-without-class=1']).flags.watchIngressWithoutClass, true);
    assert.equal(run(['--ingress-class-by-name=T']).flags.ingressClassByName, true);
    assert.equal(run(['--update-status=false']).flags.updateStatus, false);
    assert.equal(run(['--update-status=F']).flags.updateStatus, false);
    assert.equal(run(['--update-status=0']).flags.updateStatus, false);
    rejects(['--update-status=no'], /--update-status.*'no' is invalid/);
  });

  it('never takes the next argument as a boolean value (as pflag)', () => {
    const parsed = run(['--update-status', 'false', '--watch-namespace', 'a']);
    assert.equal(parsed.flags.updateStatus, true);
    assert.equal(parsed.flags.watchNamespace, 'a');
    assert.deepEqual(parsed.positionalArguments, ['false']);
  });

  it('reads klog verbosity as -v=3, -v 3, -v3, --v=3 and --v 3', () => {
    for (const argv of [['-v=3'], ['-v', '3'], ['-v3'], ['--v=3'], ['--v', '3']]) {
      const parsed = run(argv);
      assert.equal(parsed.flags.v, 3, argv.join(' '));
      assert.ok(parsed.explicitlySet.has('v'));
    }
    rejects(['-v=high'], /--v <int>.*'high' is invalid/);
  });

  it('keeps the last value of a repeated flag', () => {
    assert.equal(run(['--http-port=81', '--http-port=82']).flags.httpPort, 82);
  });

  it('reads lists comma-separated, a repeated list flag appending as in pflag', () => {
    assert.deepEqual(run(['--time-buckets=0.1,1,10']).flags.timeBuckets, [0.1, 1, 10]);
    assert.deepEqual(run(['--time-buckets=1', '--time-buckets=2,3']).flags.timeBuckets, [1, 2, 3]);
    assert.deepEqual(run(['--exclude-socket-metrics=a,b']).flags.excludeSocketMetrics, ['a', 'b']);
    assert.deepEqual(run(['--exclude-socket-metrics=']).flags.excludeSocketMetrics, []);
    rejects(['--size-buckets=1,x'], /--size-buckets.*invalid/);
  });

  it('reads integers with Go prefixes and rejects anything else, naming the flag', () => {
    assert.equal(run(['--http-port=0x50']).flags.httpPort, 80);
    assert.equal(run(['--http-port=0o120']).flags.httpPort, 80);
    assert.equal(run(['--http-port=0120']).flags.httpPort, 80); // leading zero: octal, as strconv
    assert.equal(run(['--monitor-max-batch-size=10_000']).flags.monitorMaxBatchSize, 10000);
    rejects(['--http-port=abc'], /--http-port <int>.*'abc' is invalid/);
    rejects(['--http-port', '8.5'], /--http-port.*'8.5' is invalid/);
    rejects(['--http-port=80a'], /--http-port.*invalid/);
    rejects(['--http-port=089'], /--http-port.*invalid/);
    rejects(['--healthz-port='], /--healthz-port.*invalid/);
    rejects(['--max-buckets=-1'], /--max-buckets.*invalid/);
    rejects(['--max-buckets=4294967296'], /--max-buckets.*out of range/);
  });

  it('reads floats and rejects non-numbers', () => {
    assert.equal(run(['--sync-rate-limit=2.5']).flags.syncRateLimit, 2.5);
    assert.equal(run(['--bucket-factor', '1.1']).flags.bucketFactor, 1.1);
    assert.equal(run(['--sync-rate-limit=1e-1']).flags.syncRateLimit, 0.1);
    rejects(['--sync-rate-limit=fast'], /--sync-rate-limit <float>.*'fast' is invalid/);
  });

  it('reads Go durations into milliseconds', () => {
    const cases: [string, number][] = [
      ['30s', 30_000],
      ['10m', 600_000],
      ['1h30m', 5_400_000],
      ['250ms', 250],
      ['1.5h', 5_400_000],
      ['1m30.5s', 90_500],
      ['500us', 0.5],
      ['0', 0],
      ['0s', 0],
    ];
    for (const [text, milliseconds] of cases) {
      assert.equal(run([`--sync-period=${text}`]).flags.syncPeriod, milliseconds, text);
    }
    assert.equal(run(['--election-ttl', '1m']).flags.electionTtl, 60_000);
  });

  it('rejects a duration without a unit or with an unknown one, naming the flag', () => {
    for (const text of ['10', '1x', '', 'ms', '1m30', '1 m', 's1']) {
      rejects([`--election-ttl=${text}`], /--election-ttl <duration>.*is invalid/);
    }
  });

  it('rejects a bad IP address', () => {
    assert.equal(run(['--profiler-address=::1']).flags.profilerAddress, '::1');
    rejects(['--profiler-address=localhost'], /--profiler-address.*invalid/);
  });

  it('treats arguments after -- as positional', () => {
    const parsed = run(['--v=1', '--', '--http-port=1']);
    assert.equal(parsed.flags.httpPort, 80);
    assert.deepEqual(parsed.positionalArguments, ['--http-port=1']);
  });

  it('reports a flag without its value', () => {
    rejects(['--ingress-class'], /--ingress-class.*argument missing/);
  });
});

describe('unknown flags', () => {
  it('are refused with a suggestion', () => {
    rejects(['--wach-namespace'], /unknown option '--wach-namespace'[\s\S]*Did you mean --watch-namespace\?/);
    rejects(['--ingres-class=nginx'], /unknown option '--ingres-class'[\s\S]*Did you mean --ingress-class\?/);
  });

  it('are refused when written with one dash, suggesting two', () => {
    rejects(['-watch-namespace=default'], /'-watch-namespace=default'[\s\S]*Did you mean --watch-namespace\?/);
  });

  it('include klog flags other than -v, which Portico does not accept', () => {
    rejects(['--logtostderr'], /unknown option '--logtostderr'/);
  });
});

describe('explicitly set flags and warnings', () => {
  it('records every flag given, including one given its default value', () => {
    const parsed = run(['--ingress-class=nginx', '--http-port', '80', '--manifests=./m']);
    assert.deepEqual([...parsed.explicitlySet].sort(), ['http-port', 'ingress-class', 'manifests']);
    assert.equal(parsed.flags.manifests, './m');
  });

  it('none for a flag accepted but ignored: every flag is implemented or says why it cannot apply', () => {
    const parsed = run([
      '--enable-ssl-passthrough',
      '--watch-namespace=a',
      '--stream-port=10247',
      '-v=2',
      '--tcp-services-configmap',
      'a/b',
    ]);
    assert.deepEqual(parsed.warnings, []);
    for (const definition of FLAG_DEFINITIONS) assert.ok(definition.implemented || definition.cannotApply, definition.name);
  });

  it('are empty when only implemented flags are passed', () => {
    const parsed = run([
      '--apiserver-host=https://127.0.0.1:6443',
      '--kubeconfig=/k',
      '--watch-namespace=a',
      '--ingress-class=x',
      '--controller-class=y',
      '--ingress-class-by-name',
      '--watch-ingress-without-class',
      '--disable-catch-all',
      '-v',
      '2',
      '--manifests',
      'dir',
    ]);
    assert.deepEqual(parsed.warnings, []);
  });
});

describe('flag combinations', () => {
  it('refuses --watch-namespace together with --watch-namespace-selector, as ingress-nginx', () => {
    rejects(['--watch-namespace=a', '--watch-namespace-selector=team=a'], /mutually exclusive/);
  });

  it('refuses --metrics-per-undefined-host without --metrics-per-host, as ingress-nginx', () => {
    rejects(['--metrics-per-undefined-host', '--metrics-per-host=false'], /must be passed with --metrics-per-host=true/);
    assert.equal(run(['--metrics-per-undefined-host']).flags.metricsPerUndefinedHost, true);
  });

  it('refuses a --monitor-max-batch-size below 1', () => {
    rejects(['--monitor-max-batch-size=0'], /at least 1/);
  });
});

describe('--version and --help', () => {
  it('--version asks to print the version and exit 0', () => {
    const result = parseCommandLine(['--watch-namespace=a', '--version']);
    assert.deepEqual(result, { kind: 'exit', exitCode: 0, output: `portico ${PORTICO_VERSION}\n` });
  });

  it('--version=false runs', () => {
    assert.equal(run(['--version=false']).flags.version, false);
  });

  it('--version still fails on a bad flag, as pflag parses everything first', () => {
    rejects(['--version', '--http-port=x'], /--http-port/);
  });

  it('--help and -h list every flag and exit 0', () => {
    for (const argv of [['--help'], ['-h']]) {
      const result = parseCommandLine(argv);
      assert.equal(result.kind, 'exit');
      assert.equal(result.exitCode, 0);
      for (const { name } of FLAG_DEFINITIONS) assert.ok(result.output.includes(`--${name} `), `--${name} missing`);
      assert.match(result.output, /--election-ttl <duration> .*\(default 30s\)/);
      assert.match(result.output, /--stream-port <int> .*\[cannot apply: .*no stream Lua module/);
    }
  });
});
