/**
 * Issue 14: what external authentication (auth-url) costs a location, with
 * and without its cache, beside the same location without it, all in one
 * Portico:
 *   node --import tsx bench/externalAuthThroughput.ts [--duration 10] [--rounds 5]
 *
 * Portico runs in manifest mode with `worker-processes: 1` and four hosts
 * routing to one backend: `plain` (no auth), `auth` (auth-url, so every request
 * first asks the auth service) and `cached` (the same plus auth-cache-key
 * `$host` and auth-cache-duration `200 10m`, so after the first request the
 * answer comes from nginx's cache) and `kept` (auth-url with auth-keepalive 32:
 * a Lua subrequest over kept-alive connections instead of auth_request; with
 * `use-http2: false`, which auth-keepalive needs, as in ingress-nginx). The backend and the auth service are one
 * nginx answering 200 at once (a real auth service costs more; this measures
 * what Portico's side costs). Portico's nginx is pinned to CPU 0; the backend,
 * the auth service and wrk (one thread, 32 connections) to CPU 1. Each
 * uncached auth request but kept's opens a new connection to the auth service (nginx's
 * auth_request keeps none alive), which CPU 1 also pays for: its busy share is
 * printed, and near 100 % requests/s is bounded by that side. Rounds alternate
 * the order of the hosts; medians over rounds are compared.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { NginxProcess } from '../src/dataplane/nginx/nginxProcess.js';
import { prefixLayout } from '../src/dataplane/nginx/process/prefixLayout.js';
import { silentLogger } from '../src/log/logger.js';
import { SERVICE_NAME_LABEL } from '../src/store/store.js';
import { eventually } from '../test/support/eventually.js';
import { freeLoopbackPorts } from '../test/support/freePort.js';
import { httpGet } from '../test/support/httpGet.js';
import { startPortico, type PorticoProcess } from '../test/support/porticoProcess.js';
import { describeMachine } from './support/machine.js';
import { roundOptions } from './support/options.js';
import { cpuCounters, cpuSecondsBetween, cpuTicks, pin, processTree, readPidFile } from './support/processCpu.js';
import { median } from './support/statistics.js';
import { figure, printTable } from './support/table.js';
import { runWrk, type LoadResult } from './support/wrk.js';

const PROXY_CPU = 0;
const LOAD_CPU = 1;
const LOAD_CONNECTIONS = 32;
const WARM_UP_SECONDS = 2;
const BODY = 'hello from the benchmark backend\n';
const CONFIG_MAP = 'default/portico-bench';

interface Variant {
  readonly name: string;
  readonly host: string;
  readonly annotations: Readonly<Record<string, string>>;
}

interface Round extends LoadResult {
  proxyCpuMicrosecondsPerRequest: number;
  loadCpuBusyPercent: number;
}

function variants(backendPort: number): Variant[] {
  const authUrl = `http://127.0.0.1:${backendPort}/auth`;
  return [
    { name: 'no auth', host: 'plain.bench', annotations: {} },
    { name: 'auth-url', host: 'auth.bench', annotations: { 'auth-url': authUrl } },
    {
      name: 'auth-url, cached',
      host: 'cached.bench',
      annotations: { 'auth-url': authUrl, 'auth-cache-key': '$host', 'auth-cache-duration': '200 10m' },
    },
    { name: 'auth-url + auth-keepalive', host: 'kept.bench', annotations: { 'auth-url': authUrl, 'auth-keepalive': '32' } },
  ];
}

async function main(): Promise<void> {
  const { seconds, rounds } = roundOptions(5);
  if (availableParallelism() < 2) throw new Error('this benchmark pins the proxy and the load to different CPUs: it needs 2');
  process.stdout.write(`machine before: ${describeMachine()}\n`);

  const [backendPort = 0] = await freeLoopbackPorts(1);
  const backend = await startBackend(backendPort);
  const cases = variants(backendPort);
  let portico: Awaited<ReturnType<typeof startPorticoFor>> | undefined;
  try {
    portico = await startPorticoFor(cases, backendPort);
    const backendPids = await processTree(backend.masterPid);
    await pin(backendPids, LOAD_CPU);
    const proxyPids = await processTree(await readPidFile(prefixLayout(portico.process.prefix).pidFile));
    await pin(proxyPids, PROXY_CPU);

    const port = portico.process.ports.http;
    for (const variant of cases) await measure(port, variant, proxyPids, WARM_UP_SECONDS);
    const results = new Map<Variant, Round[]>(cases.map((variant) => [variant, []]));
    for (let round = 0; round < rounds; round++) {
      for (const variant of round % 2 === 0 ? cases : [...cases].reverse()) {
        const result = await measure(port, variant, proxyPids, seconds);
        results.get(variant)!.push(result);
        process.stderr.write(
          `round ${round + 1} ${variant.name}: ${figure(result.requestsPerSecond)} req/s, ` +
            `${figure(result.proxyCpuMicrosecondsPerRequest, 1)} µs proxy CPU/request, CPU ${LOAD_CPU} busy ${figure(result.loadCpuBusyPercent)} %\n`,
        );
      }
    }
    process.stdout.write(
      `\nwrk -t1 -c${LOAD_CONNECTIONS} -d${seconds}s on CPU ${LOAD_CPU} with the backend and auth service; Portico's nginx one worker on CPU ${PROXY_CPU}; median of ${rounds} rounds\n\n`,
    );
    printResults(cases, results);
  } finally {
    await portico?.stop();
    await backend.stop();
  }
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

async function measure(port: number, variant: Variant, proxyPids: readonly number[], seconds: number): Promise<Round> {
  const before = await cpuTicks(proxyPids);
  const loadBefore = await cpuCounters(LOAD_CPU);
  const load = await runWrk({ port, host: variant.host, seconds, connections: LOAD_CONNECTIONS, cpu: LOAD_CPU });
  const proxySeconds = cpuSecondsBetween(before, await cpuTicks(proxyPids));
  const loadAfter = await cpuCounters(LOAD_CPU);
  return {
    ...load,
    proxyCpuMicrosecondsPerRequest: (proxySeconds.total * 1e6) / load.requests,
    loadCpuBusyPercent: (100 * (loadAfter.busy - loadBefore.busy)) / (loadAfter.total - loadBefore.total),
  };
}

/** The backend and the auth service: one nginx answering 200 at once, with keep-alive for the proxy's pool. */
async function startBackend(port: number): Promise<{ masterPid: number; stop: () => Promise<void> }> {
  const prefix = await mkdtemp(join(tmpdir(), 'portico-bench-auth-backend-'));
  const nginx = new NginxProcess({ prefix, logger: silentLogger() });
  const { layout } = nginx;
  const conf = `worker_processes 1;
error_log ${layout.errorLog} warn;
events { worker_connections 4096; }
http {
    client_body_temp_path ${layout.temp.clientBody};
    proxy_temp_path ${layout.temp.proxy};
    fastcgi_temp_path ${layout.temp.fastcgi};
    uwsgi_temp_path ${layout.temp.uwsgi};
    scgi_temp_path ${layout.temp.scgi};
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 75s;
    server {
        listen 127.0.0.1:${port};
        location = /auth { return 200; }
        location / { return 200 "${BODY.replace('\n', '\\n')}"; }
    }
}
`;
  const stop = async (): Promise<void> => {
    await nginx.stop();
    await rm(prefix, { recursive: true, force: true });
  };
  try {
    await nginx.start(conf);
  } catch (error) {
    await stop();
    throw error;
  }
  if (nginx.masterPid === undefined) throw new Error('the backend nginx is not running');
  return { masterPid: nginx.masterPid, stop };
}

/** Portico on a manifest folder with one Ingress per variant, once each host answers 200. */
async function startPorticoFor(
  cases: readonly Variant[],
  backendPort: number,
): Promise<{ process: PorticoProcess; stop: () => Promise<void> }> {
  const manifests = await mkdtemp(join(tmpdir(), 'portico-bench-auth-manifests-'));
  const [namespace, name] = CONFIG_MAP.split('/');
  const objects: object[] = [
    { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { 'worker-processes': '1', 'use-http2': 'false' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'backend' }, spec: { ports: [{ name: 'http', port: 80 }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'backend-1', labels: { [SERVICE_NAME_LABEL]: 'backend' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'] }],
      ports: [{ name: 'http', port: backendPort }],
    },
    ...cases.map((variant, index) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: {
        name: `bench-${index}`,
        annotations: Object.fromEntries(
          Object.entries(variant.annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]),
        ),
      },
      spec: {
        ingressClassName: 'nginx',
        rules: [
          {
            host: variant.host,
            http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'backend', port: { number: 80 } } } }] },
          },
        ],
      },
    })),
  ];
  await writeFile(join(manifests, 'bench.yaml'), objects.map((object) => stringify(object)).join('---\n'));
  const removeManifests = (): Promise<void> => rm(manifests, { recursive: true, force: true });
  let portico: PorticoProcess;
  try {
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
    for (const variant of cases) {
      await eventually(
        async () => {
          const response = await httpGet({ port: portico.ports.http, host: variant.host, timeoutMs: 2_000 });
          if (response.status !== 200 || response.body !== BODY) throw new Error(`${variant.host}: HTTP ${response.status}`);
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
    }
  } catch (error) {
    const tail = portico.logTail(30);
    await stop();
    throw new Error(`Portico does not serve every variant: ${(error as Error).message}\n${tail}`);
  }
  return { process: portico, stop };
}

function printResults(cases: readonly Variant[], results: ReadonlyMap<Variant, readonly Round[]>): void {
  const of = (variant: Variant, pick: (round: Round) => number): number => median(results.get(variant)!.map(pick));
  const [plain] = cases;
  if (plain === undefined) return;
  printTable(
    [
      'location',
      'requests/s',
      'p50 (ms)',
      'p99 (ms)',
      'proxy CPU per request (µs)',
      `CPU ${LOAD_CPU} busy (%)`,
      'socket errors',
      'requests/s vs no auth',
      'CPU per request vs no auth',
    ],
    cases.map((variant) => [
      variant.name,
      figure(of(variant, (r) => r.requestsPerSecond)),
      figure(
        of(variant, (r) => r.p50Ms),
        2,
      ),
      figure(
        of(variant, (r) => r.p99Ms),
        2,
      ),
      figure(
        of(variant, (r) => r.proxyCpuMicrosecondsPerRequest),
        1,
      ),
      figure(of(variant, (r) => r.loadCpuBusyPercent)),
      figure(results.get(variant)!.reduce((sum, r) => sum + r.socketErrors, 0)),
      figure(of(variant, (r) => r.requestsPerSecond) / of(plain, (r) => r.requestsPerSecond), 2),
      figure(of(variant, (r) => r.proxyCpuMicrosecondsPerRequest) / of(plain, (r) => r.proxyCpuMicrosecondsPerRequest), 2),
    ]),
  );
}

await main();
