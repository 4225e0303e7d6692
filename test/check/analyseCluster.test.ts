// The analysis of `portico check` on a store filled as the sources fill it:
// the controller's verdicts per Ingress, the ConfigMap's refused values and
// ignored keys, the Deployment's flags, and whether anything would change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyseCluster } from '../../src/check/analyseCluster.js';
import type { CheckReport } from '../../src/check/checkReport.js';
import type { Deployment } from '../../src/check/deploymentFlags.js';
import { parseCommandLine } from '../../src/cli/commandLine.js';
import { FLAG_DEFINITIONS } from '../../src/cli/flags.js';
import { storeSettingsFromFlags } from '../../src/cli/storeSettingsFromFlags.js';
import type { ConfigMap, Ingress } from '../../src/kube/objects.js';
import { Store } from '../../src/store/store.js';

/** A flag whose ingress-nginx meaning cannot apply: the check reports it with its reason. */
const MAXMIND_LICENSE_KEY =
  FLAG_DEFINITIONS.find((definition) => definition.name === 'maxmind-license-key') ?? assert.fail('no --maxmind-license-key');

const PREFIX = 'nginx.ingress.kubernetes.io';
const CONFIGMAP = 'ingress-nginx/ingress-nginx-controller';

function flagsOf(args: readonly string[]) {
  const parsed = parseCommandLine(['--ingress-class=nginx', `--configmap=${CONFIGMAP}`, ...args]);
  assert.equal(parsed.kind, 'run');
  return parsed.flags;
}

let age = 0;
function ingress(name: string, host: string, path: string, annotations: Record<string, string> = {}, className = 'nginx'): Ingress {
  age++;
  return {
    metadata: {
      name,
      namespace: 'shop',
      resourceVersion: String(age),
      creationTimestamp: new Date(Date.UTC(2026, 0, 1) + age * 1000).toISOString(),
      annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value])),
    },
    spec: {
      ingressClassName: className,
      rules: [{ host, http: { paths: [{ path, pathType: 'Exact', backend: { service: { name: 'app', port: { number: 80 } } } }] } }],
    },
  };
}

function configMap(data: Record<string, string>): ConfigMap {
  return { metadata: { namespace: 'ingress-nginx', name: 'ingress-nginx-controller', resourceVersion: '1' }, data };
}

function storeWith(flags: ReturnType<typeof flagsOf>, ingresses: readonly Ingress[], data?: Record<string, string>): Store {
  const store = new Store(storeSettingsFromFlags(flags));
  store.sink('IngressClass').upsert({ metadata: { name: 'nginx', resourceVersion: '1' }, spec: { controller: 'k8s.io/ingress-nginx' } });
  store.sink('Service').upsert({ metadata: { namespace: 'shop', name: 'app', resourceVersion: '1' }, spec: { ports: [{ port: 80 }] } });
  if (data) store.sink('ConfigMap').upsert(configMap(data));
  for (const item of ingresses) store.sink('Ingress').upsert(item);
  return store;
}

const ENVIRONMENT = { cpus: 2 };

test('Ingresses served as ingress-nginx serves them and a ConfigMap Portico reads whole: nothing would change', () => {
  const flags = flagsOf([]);
  const store = storeWith(flags, [ingress('plain', 'shop.example', '/cart')], { 'proxy-body-size': '8m' });
  const expected: CheckReport = {
    version: 1,
    changes: false,
    ingresses: [
      {
        namespace: 'shop',
        name: 'plain',
        status: 'served',
        changes: false,
        serves: [
          { host: 'shop.example', path: '/', match: 'prefix' },
          { host: 'shop.example', path: '/cart', match: 'exact' },
        ],
        refused: [],
        ignored: [],
        problems: [],
      },
    ],
    configMap: { name: CONFIGMAP, found: true, refusedValues: [], ignoredKeys: [] },
    warnings: [],
  };
  assert.deepEqual(analyseCluster({ store, flags, environment: ENVIRONMENT }), expected);
});

test('refused, ignored and foreign Ingresses, refused and ignored ConfigMap keys, and flags Portico would not honour', () => {
  const flags = flagsOf([]);
  const store = storeWith(
    flags,
    [
      ingress('otel', 'otel.example', '/api', { 'enable-opentelemetry': 'true' }),
      ingress('risky', 'risky.example', '/', { 'auth-url': 'http://auth.example/check' }),
      ingress('snippet', 'snippet.example', '/', { 'configuration-snippet': 'return 200;' }),
      ingress('bad-value', 'bad.example', '/', { 'proxy-body-size': 'lots' }),
      ingress('foreign', 'foreign.example', '/', {}, 'other'),
    ],
    { 'annotations-risk-level': 'Medium', 'enable-opentelemetry': 'true', 'no-such-key': 'x', 'keep-alive': 'forever' },
  );
  const deployment: Deployment = {
    metadata: { namespace: 'ingress-nginx', name: 'ingress-nginx-controller' },
    spec: {
      selector: {},
      template: {
        spec: {
          containers: [
            { name: 'sidecar', args: ['--no-such-flag'] },
            {
              name: 'controller',
              args: [
                '/nginx-ingress-controller',
                '--election-id',
                'leader',
                '--enable-ssl-passthrough',
                '--maxmind-license-key=secret',
                '--no-such-flag=1',
              ],
            },
          ],
        },
      },
    },
  };
  const refusedIngress = (name: string, reason: string) => ({
    namespace: 'shop',
    name,
    status: 'refused' as const,
    changes: true,
    serves: [],
    refused: [reason],
    ignored: [],
    problems: [],
  });
  const expected: CheckReport = {
    version: 1,
    changes: true,
    ingresses: [
      refusedIngress(
        'bad-value',
        `annotation ${PREFIX}/proxy-body-size: invalid value "lots"; expected an nginx size such as 1m, 512k or 0, at most 8589934591g`,
      ),
      {
        namespace: 'shop',
        name: 'otel',
        status: 'served',
        changes: true,
        serves: [
          { host: 'otel.example', path: '/', match: 'prefix' },
          { host: 'otel.example', path: '/api', match: 'exact' },
        ],
        refused: [],
        ignored: [
          `annotation ${PREFIX}/enable-opentelemetry: Debian 12's nginx has no OpenTelemetry module, so Portico cannot apply it; ignored`,
        ],
        problems: [],
      },
      refusedIngress('risky', `annotation ${PREFIX}/auth-url: risk level High is above the ConfigMap's annotations-risk-level Medium`),
      refusedIngress(
        'snippet',
        `annotation ${PREFIX}/configuration-snippet: snippet annotations are refused unless the ConfigMap sets allow-snippet-annotations: "true" and annotations-risk-level: Critical (it has false and Medium)`,
      ),
    ],
    configMap: {
      name: CONFIGMAP,
      found: true,
      refusedValues: [
        `ConfigMap key keep-alive: invalid value "forever"; expected an integer of seconds from 0 to 2147483; keeping the default`,
      ],
      ignoredKeys: [
        {
          key: 'enable-opentelemetry',
          kind: 'missing-module',
          reason: "Debian 12's nginx has no OpenTelemetry module, so Portico cannot apply it; ignored",
        },
        { key: 'no-such-key', kind: 'unknown', reason: 'not a ConfigMap key of ingress-nginx v1.15.1; ignored' },
      ],
    },
    deployment: {
      name: 'ingress-nginx/ingress-nginx-controller',
      container: 'controller',
      flags: [
        {
          argument: '--maxmind-license-key=secret',
          kind: 'cannot-apply',
          reason: `${MAXMIND_LICENSE_KEY.cannotApply}; Portico says so at start`,
        },
        { argument: '--no-such-flag=1', kind: 'unknown', reason: 'Portico has no such flag: it would not start with it' },
      ],
    },
    warnings: [],
  };
  assert.deepEqual(analyseCluster({ store, flags, environment: ENVIRONMENT, deployment }), expected);
});

test('a ConfigMap that is not there: the defaults apply, which is no change', () => {
  const flags = flagsOf([]);
  const report = analyseCluster({ store: storeWith(flags, []), flags, environment: ENVIRONMENT });
  assert.deepEqual(report.configMap, { name: CONFIGMAP, found: false, refusedValues: [], ignoredKeys: [] });
  assert.equal(report.changes, false);
});

test('the model finds problems as the controller does: a path an older Ingress serves is a warning, so a change', () => {
  const flags = flagsOf(['--default-backend-service=shop/nowhere']);
  const older = ingress('older', 'shop.example', '/cart');
  const newer = ingress('newer', 'shop.example', '/cart');
  const report = analyseCluster({ store: storeWith(flags, [newer, older]), flags, environment: ENVIRONMENT });
  assert.deepEqual(
    report.ingresses.map(({ name, status, changes, serves, problems }) => ({ name, status, changes, serves, problems })),
    [
      {
        name: 'newer',
        status: 'served',
        changes: true,
        serves: [],
        problems: [
          {
            severity: 'warning',
            reason: 'PathConflict',
            message: 'path /cart on host shop.example is already served by the older Ingress shop/older',
          },
        ],
      },
      {
        name: 'older',
        status: 'served',
        changes: false,
        serves: [
          { host: 'shop.example', path: '/', match: 'prefix' },
          { host: 'shop.example', path: '/cart', match: 'exact' },
        ],
        problems: [],
      },
    ],
  );
  assert.equal(report.changes, true);
  assert.deepEqual(report.warnings, ['default backend service shop/nowhere not found or has no ports; unmatched requests get 404']);
});
