/**
 * Issue 4: proxied requests per second, latency and proxy CPU per request
 * through the nginx.conf Portico renders (its Lua-balanced path), against a
 * hand-written nginx with a static `upstream` to the same backend, with one
 * worker each:
 *   node --import tsx bench/proxyThroughput.ts [--duration 10] [--rounds 5]
 *
 * The hand-written proxy is what a competent hand-written configuration has:
 * `upstream` with keep-alive (Portico's pool settings), `proxy_http_version
 * 1.1` and an empty Connection header. Logging is compared like for like, in
 * two pairs: with Portico's default access log (the same `upstreaminfo` line,
 * to a file, so the static side defines the variables that line names), and
 * with no access log on either side (Portico's `disable-access-log: true`).
 * Portico runs as users run it, in manifest mode (an EndpointSlice names the
 * loopback backend), with `worker-processes: 1` from its ConfigMap.
 *
 * Beside each pair run two variants of Portico's own nginx.conf
 * (support/porticoConfVariant.ts): the same file with a static `upstream`, and
 * with a balancer_by_lua that only sets one constant peer. Everything else a
 * request goes through is Portico's (ingress-nginx's headers, X-Request-ID,
 * variables, log line), so they split the difference: the static variant
 * against the hand-written proxy is the cost of that compatibility; the
 * constant-peer variant against the static one is the floor of any
 * balancer_by_lua balancing; Portico against the constant-peer variant is
 * Portico's own Lua.
 *
 * Every proxy is pinned to CPU 0, the backend and the load generator to CPU
 * 1, so each proxy's CPU time is its own. The backend is an nginx answering
 * `return 200` with a fixed body: it does far less per request than a proxy,
 * so it is not the bottleneck. The load is wrk (Debian package) on loopback:
 * one thread, 32 connections, a fixed duration per round. On 2 cores wrk and
 * the backend can fill CPU 1 before a cheap proxy fills CPU 0; the table
 * prints how busy CPU 1 was, and when it is near 100 % requests/s is bounded
 * by the load side and the requests/s ratio understates the difference. The
 * proxy's CPU time per request does not depend on that. Rounds alternate the
 * order of the proxies; the medians over rounds are compared.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { prefixLayout, type PrefixLayout } from '../src/dataplane/nginx/process/prefixLayout.js';
import { DEFAULT_LOG_FORMAT_UPSTREAM, DEFAULT_SETTINGS } from '../src/model/settings/globalSettings.js';
import { SERVICE_NAME_LABEL } from '../src/store/store.js';
import { eventually } from '../test/support/eventually.js';
import { freeLoopbackPorts } from '../test/support/freePort.js';
import { httpGet } from '../test/support/httpGet.js';
import { startPortico, type PorticoProcess } from '../test/support/porticoProcess.js';
import { describeMachine } from './support/machine.js';
import { roundOptions } from './support/options.js';
import { porticoConfVariant, type BalancerVariant } from './support/porticoConfVariant.js';
import { cpuCounters, cpuSecondsBetween, cpuTicks, pin, processTree, readPidFile } from './support/processCpu.js';
import { median } from './support/statistics.js';
import { figure, printTable } from './support/table.js';
import { runWrk, type LoadResult } from './support/wrk.js';
import { startThrowAwayNginx } from './support/throwAwayNginx.js';

const PROXY_CPU = 0;
const LOAD_CPU = 1;
const LOAD_CONNECTIONS = 32;
const WARM_UP_SECONDS = 2;
const HOST = 'bench.local';
const BACKEND_BODY = 'hello from the benchmark backend\n';
const CONFIG_MAP = 'default/portico-bench';

interface Round extends LoadResult {
  /** CPU time of the proxy's processes over the round, in % of one core. */
  proxyCpuPercent: number;
  /**
   * The proxy's CPU time per request: what the configuration costs, and the
   * figure least moved by other processes competing for the machine.
   */
  proxyCpuMicrosecondsPerRequest: number;
  /** The part of it in user space (nginx, Lua, OpenSSL): the kernel's part, TCP on loopback, varies more between rounds. */
  proxyUserCpuMicrosecondsPerRequest: number;
  backendCpuPercent: number;
  /** How busy the load generator's CPU was (wrk, the backend, anything else scheduled there), in %. */
  loadCpuBusyPercent: number;
}

interface Proxy {
  readonly name: string;
  readonly port: number;
  masterPid(): Promise<number>;
}

/** How both sides of a comparison log, and what Portico's ConfigMap says for it. */
interface Logging {
  readonly name: string;
  readonly accessLog: boolean;
  readonly configMap: Readonly<Record<string, string>>;
}

const LOGGINGS: readonly Logging[] = [
  { name: 'same access log', accessLog: true, configMap: {} },
  { name: 'no access log', accessLog: false, configMap: { 'disable-access-log': 'true' } },
];

/**
 * The hand-written static upstream and Portico, logging alike; with the access
 * log also Portico's own nginx.conf with only its balancer swapped (the
 * variants), which separates what balancer_by_lua costs from what Portico's
 * Lua and its ingress-nginx headers cost.
 */
interface Comparison {
  readonly logging: Logging;
  readonly baseline: Proxy;
  readonly variants: readonly Proxy[];
  readonly portico: Proxy;
}

const VARIANTS: readonly BalancerVariant[] = ['static upstream', 'constant Lua peer'];

/** The backend's name in Portico (`<namespace>-<service>-<port>`), logged by both sides. */
const BACKEND_NAME = 'default-backend-80';

async function main(): Promise<void> {
  const { seconds: durationSeconds, rounds } = roundOptions(5);
  if (availableParallelism() < 2) throw new Error('this benchmark pins the proxy and the load to different CPUs: it needs 2');

  process.stdout.write(`machine before: ${describeMachine()}\n`);
  const [backendPort = 0, ...staticPorts] = await freeLoopbackPorts(1 + LOGGINGS.length);
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const backend = await startThrowAwayNginx((layout) => backendConf(layout, backendPort));
    cleanups.push(backend.stop);
    const comparisons: Comparison[] = [];
    for (const [index, logging] of LOGGINGS.entries()) {
      const port = staticPorts[index]!;
      const handWritten = await startThrowAwayNginx((layout) => staticUpstreamConf(layout, port, backendPort, logging));
      cleanups.push(handWritten.stop);
      const portico = await startPorticoProxy(backendPort, logging);
      cleanups.push(portico.stop);
      const variants: Proxy[] = [];
      const conf = await readFile(prefixLayout(portico.process.prefix).configFile, 'utf8');
      for (const variant of VARIANTS) {
        const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
        const variantPorts = { http, https, defaultServer, status, healthz: 0 };
        const swapped = await startThrowAwayNginx((layout) =>
          porticoConfVariant(
            conf,
            { prefix: portico.process.prefix, ports: { ...portico.process.ports } },
            { prefix: layout.prefix, ports: variantPorts },
            variant,
            { address: '127.0.0.1', port: backendPort },
          ),
        );
        cleanups.push(swapped.stop);
        variants.push({
          name: `Portico's nginx.conf, ${variant}, ${logging.name}`,
          port: http,
          masterPid: async () => requirePid(swapped.nginx.masterPid),
        });
      }
      comparisons.push({
        logging,
        baseline: { name: `static upstream, ${logging.name}`, port, masterPid: async () => requirePid(handWritten.nginx.masterPid) },
        variants,
        portico: {
          name: `Portico, ${logging.name}`,
          port: portico.process.ports.http,
          masterPid: () => readPidFile(prefixLayout(portico.process.prefix).pidFile),
        },
      });
    }
    const proxies = comparisons.flatMap(({ baseline, variants, portico }) => [baseline, ...variants, portico]);
    const backendPid = requirePid(backend.nginx.masterPid);
    await pin(await processTree(backendPid), LOAD_CPU);

    for (const proxy of proxies) await measureRound(proxy, backendPid, WARM_UP_SECONDS);
    const results = new Map<Proxy, Round[]>(proxies.map((proxy) => [proxy, []]));
    for (let round = 0; round < rounds; round++) {
      // Alternate the order, so a drift in the machine's load does not favour one proxy.
      for (const proxy of round % 2 === 0 ? proxies : [...proxies].reverse()) {
        const result = await measureRound(proxy, backendPid, durationSeconds);
        results.get(proxy)!.push(result);
        process.stderr.write(
          `round ${round + 1} ${proxy.name}: ${figure(result.requestsPerSecond)} req/s, p50 ${figure(result.p50Ms, 2)} ms, ` +
            `p99 ${figure(result.p99Ms, 2)} ms, proxy CPU ${figure(result.proxyCpuPercent)} %, ` +
            `${figure(result.proxyCpuMicrosecondsPerRequest, 1)} µs/request (${figure(result.proxyUserCpuMicrosecondsPerRequest, 1)} user), CPU ${LOAD_CPU} busy ${figure(result.loadCpuBusyPercent)} %\n`,
        );
      }
    }
    process.stdout.write(
      `\nwrk -t1 -c${LOAD_CONNECTIONS} -d${durationSeconds}s on CPU ${LOAD_CPU} with the backend; each proxy one worker on CPU ${PROXY_CPU}; ` +
        `median of ${rounds} rounds\n\n`,
    );
    printResults(comparisons, results);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

function requirePid(pid: number | undefined): number {
  if (pid === undefined) throw new Error('nginx is not running');
  return pid;
}

// ---- the three nginx instances ----

/** What every hand-written configuration needs: one worker, and its files inside its own prefix. */
function mainContext(layout: PrefixLayout, http: string): string {
  return `worker_processes 1;
error_log ${layout.errorLog} warn;
events { worker_connections 1024; }
http {
    client_body_temp_path ${layout.temp.clientBody};
    proxy_temp_path ${layout.temp.proxy};
    fastcgi_temp_path ${layout.temp.fastcgi};
    uwsgi_temp_path ${layout.temp.uwsgi};
    scgi_temp_path ${layout.temp.scgi};
${http}
}
`;
}

/** A fixed answer, with connections kept open for as long as the proxies keep theirs. */
function backendConf(layout: PrefixLayout, port: number): string {
  return mainContext(
    layout,
    `
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 75s;
    server {
        listen 127.0.0.1:${port};
        location / { return 200 "${BACKEND_BODY.replace('\n', '\\n')}"; }
    }`,
  );
}

/**
 * The hand-written proxy: a static upstream with Portico's keep-alive pool,
 * HTTP/1.1 and an empty Connection header. With the access log it writes
 * Portico's default line, so it defines what that line names: the backend's
 * name, an empty canary name, and $req_id as Portico's map makes it (the
 * client's X-Request-ID, else a fresh $request_id).
 */
function staticUpstreamConf(layout: PrefixLayout, port: number, backendPort: number, logging: Logging): string {
  if (DEFAULT_LOG_FORMAT_UPSTREAM.includes("'")) throw new Error('the log format needs other quotes here');
  const logs = logging.accessLog
    ? `log_format upstreaminfo '${DEFAULT_LOG_FORMAT_UPSTREAM}';
    access_log ${layout.accessLog} upstreaminfo;
    map $http_x_request_id $req_id {
        default $http_x_request_id;
        "" $request_id;
    }`
    : 'access_log off;';
  const logVariables = logging.accessLog
    ? `set $proxy_upstream_name "${BACKEND_NAME}";
            set $proxy_alternative_upstream_name "";`
    : '';
  return mainContext(
    layout,
    `
    ${logs}
    upstream backend {
        server 127.0.0.1:${backendPort};
        keepalive ${DEFAULT_SETTINGS.upstreamKeepaliveConnections};
        keepalive_time ${DEFAULT_SETTINGS.upstreamKeepaliveTime};
        keepalive_timeout ${DEFAULT_SETTINGS.upstreamKeepaliveTimeout}s;
        keepalive_requests ${DEFAULT_SETTINGS.upstreamKeepaliveRequests};
    }
    server {
        listen 127.0.0.1:${port};
        location / {
            ${logVariables}
            proxy_pass http://backend;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }`,
  );
}

/** Portico on a manifest folder routing HOST to the backend, once it answers 200 through it. */
async function startPorticoProxy(backendPort: number, logging: Logging): Promise<{ process: PorticoProcess; stop: () => Promise<void> }> {
  const manifests = await mkdtemp(join(tmpdir(), 'portico-bench-manifests-'));
  const [configMapNamespace, configMapName] = CONFIG_MAP.split('/');
  const objects = [
    { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: configMapName, namespace: configMapNamespace },
      data: { 'worker-processes': '1', ...logging.configMap },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'backend' }, spec: { ports: [{ name: 'http', port: 80 }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'backend-1', labels: { [SERVICE_NAME_LABEL]: 'backend' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'] }],
      ports: [{ name: 'http', port: backendPort }],
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'backend' },
      spec: {
        ingressClassName: 'nginx',
        rules: [
          {
            host: HOST,
            http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'backend', port: { number: 80 } } } }] },
          },
        ],
      },
    },
  ];
  await writeFile(join(manifests, 'bench.yaml'), objects.map((object) => stringify(object)).join('---\n'));
  const removeManifests = (): Promise<void> => rm(manifests, { recursive: true, force: true });
  let portico: PorticoProcess;
  try {
    // A start is not what this measures: allow for a machine busy with other work.
    portico = await startPortico([`--manifests=${manifests}`, `--configmap=${CONFIG_MAP}`], { readyTimeoutMs: 120_000 });
  } catch (error) {
    await removeManifests();
    throw error;
  }
  const stop = async (): Promise<void> => {
    await portico.stop();
    await removeManifests();
  };
  try {
    await eventually(
      async () => {
        const response = await httpGet({ port: portico.ports.http, host: HOST, timeoutMs: 2_000 });
        if (response.status !== 200 || response.body !== BACKEND_BODY)
          throw new Error(`HTTP ${response.status}: ${response.body.slice(0, 200)}`);
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  } catch (error) {
    const tail = portico.logTail(30);
    await stop();
    throw new Error(`Portico does not proxy to the backend: ${(error as Error).message}\n${tail}`);
  }
  return { process: portico, stop };
}

// ---- load ----

async function measureRound(proxy: Proxy, backendPid: number, seconds: number): Promise<Round> {
  const proxyPids = await processTree(await proxy.masterPid());
  const backendPids = await processTree(backendPid);
  await pin(proxyPids, PROXY_CPU);
  const [proxyBefore, backendBefore] = [await cpuTicks(proxyPids), await cpuTicks(backendPids)];
  const loadCpuBefore = await cpuCounters(LOAD_CPU);
  const started = performance.now();
  const load = await runWrk({ port: proxy.port, host: HOST, seconds, connections: LOAD_CONNECTIONS, cpu: LOAD_CPU });
  const elapsedSeconds = (performance.now() - started) / 1000;
  const proxySeconds = cpuSecondsBetween(proxyBefore, await cpuTicks(proxyPids));
  const backendSeconds = cpuSecondsBetween(backendBefore, await cpuTicks(backendPids)).total;
  const loadCpuAfter = await cpuCounters(LOAD_CPU);
  return {
    ...load,
    proxyCpuPercent: (100 * proxySeconds.total) / elapsedSeconds,
    proxyCpuMicrosecondsPerRequest: (proxySeconds.total * 1e6) / load.requests,
    proxyUserCpuMicrosecondsPerRequest: (proxySeconds.user * 1e6) / load.requests,
    backendCpuPercent: (100 * backendSeconds) / elapsedSeconds,
    loadCpuBusyPercent: (100 * (loadCpuAfter.busy - loadCpuBefore.busy)) / (loadCpuAfter.total - loadCpuBefore.total),
  };
}

function printResults(comparisons: readonly Comparison[], results: ReadonlyMap<Proxy, readonly Round[]>): void {
  const summary = (proxy: Proxy) => {
    const of = (pick: (round: Round) => number): number => median(results.get(proxy)!.map(pick));
    return {
      requestsPerSecond: of((r) => r.requestsPerSecond),
      p50Ms: of((r) => r.p50Ms),
      p99Ms: of((r) => r.p99Ms),
      proxyCpuPercent: of((r) => r.proxyCpuPercent),
      proxyCpuMicrosecondsPerRequest: of((r) => r.proxyCpuMicrosecondsPerRequest),
      proxyUserCpuMicrosecondsPerRequest: of((r) => r.proxyUserCpuMicrosecondsPerRequest),
      backendCpuPercent: of((r) => r.backendCpuPercent),
      loadCpuBusyPercent: of((r) => r.loadCpuBusyPercent),
      socketErrors: results.get(proxy)!.reduce((sum, r) => sum + r.socketErrors, 0),
    };
  };
  type Summary = ReturnType<typeof summary>;
  const row = (name: string, s: Summary): string[] => [
    name,
    figure(s.requestsPerSecond),
    figure(s.p50Ms, 2),
    figure(s.p99Ms, 2),
    figure(s.proxyCpuPercent),
    figure(s.proxyCpuMicrosecondsPerRequest, 1),
    figure(s.proxyUserCpuMicrosecondsPerRequest, 1),
    figure(s.backendCpuPercent),
    figure(s.loadCpuBusyPercent),
    figure(s.socketErrors),
  ];
  const ratio = (a: number, b: number): string => figure(a / b, 2);
  printTable(
    [
      'proxy',
      'requests/s',
      'p50 (ms)',
      'p99 (ms)',
      'proxy CPU (% of a core)',
      'proxy CPU per request (µs)',
      'of which user space (µs)',
      'backend CPU (% of a core)',
      `CPU ${LOAD_CPU} busy (%)`,
      'socket errors',
    ],
    comparisons.flatMap(({ logging, baseline, variants, portico }) => {
      const handWritten = summary(baseline);
      const measured = [...variants, portico].map((proxy) => ({ proxy, figures: summary(proxy) }));
      const ratioRow = (name: string, ours: Summary, base: Summary): string[] => [
        name,
        ratio(ours.requestsPerSecond, base.requestsPerSecond),
        ratio(ours.p50Ms, base.p50Ms),
        ratio(ours.p99Ms, base.p99Ms),
        '',
        ratio(ours.proxyCpuMicrosecondsPerRequest, base.proxyCpuMicrosecondsPerRequest),
        ratio(ours.proxyUserCpuMicrosecondsPerRequest, base.proxyUserCpuMicrosecondsPerRequest),
        '',
        '',
        '',
      ];
      const ours = measured.at(-1)!.figures;
      const sameConfStatic = measured.find(({ proxy }) => proxy.name.includes(', static upstream,'))?.figures;
      return [
        row(baseline.name, handWritten),
        ...measured.map(({ proxy, figures }) => row(proxy.name, figures)),
        ...measured.map(({ proxy, figures }) => ratioRow(`${proxy.name} / hand-written static`, figures, handWritten)),
        ...(sameConfStatic ? [ratioRow(`Portico / its nginx.conf with a static upstream, ${logging.name}`, ours, sameConfStatic)] : []),
      ];
    }),
  );
}

await main();
