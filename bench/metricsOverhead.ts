/**
 * What --enable-metrics costs:
 *   node --import tsx bench/metricsOverhead.ts [--duration 10] [--rounds 3]
 *
 * 1. The controller's side, in this process: decoding batches of 10,000
 *    records and counting them (src/metrics), per record, against the same
 *    records observed through prom-client's own Counter and Histograms (what
 *    the collector would cost without its per-label-set aggregation).
 * 2. The hook alone, inside nginx: 200,000 calls of monitor.call() in one
 *    request, against building and JSON-encoding a table of the same 14
 *    variables per call (ingress-nginx's monitor.lua does that per request).
 * 3. nginx's side: the rendered configuration proxying to a backend nginx,
 *    once without and once with the monitor hook (lua/portico/monitor.lua),
 *    each with one worker pinned to CPU 0; wrk (Debian package, one thread,
 *    32 keep-alive connections) and the backend on CPU 1. Per round: nginx's
 *    CPU time per request (master and worker, from /proc), and this process's
 *    CPU time per request while it receives and counts the "with" proxy's
 *    batches. Rounds alternate the order; medians are printed.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Counter, Histogram, Registry } from 'prom-client';
import { NginxProcess } from '../src/dataplane/nginx/nginxProcess.js';
import { NginxDataPlane } from '../src/dataplane/nginxDataPlane.js';
import { silentLogger } from '../src/log/logger.js';
import { PrometheusMetrics } from '../src/metrics/prometheusMetrics.js';
import { decodeBatch, RECORD_FIELDS } from '../src/metrics/requestBatch.js';
import { RequestMetrics } from '../src/metrics/requestMetrics.js';
import { DEFAULT_SETTINGS } from '../src/model/settings/globalSettings.js';
import type { Configuration } from '../src/model/types.js';
import { freeLoopbackPorts } from '../test/support/freePort.js';
import { httpGet } from '../test/support/httpGet.js';
import { describeMachine } from './support/machine.js';
import { roundOptions } from './support/options.js';
import { cpuSecondsBetween, cpuTicks, pin, processTree } from './support/processCpu.js';
import { median } from './support/statistics.js';
import { figure, printTable } from './support/table.js';

const run = promisify(execFile);

const HOST = 'bench.local';
const BACKEND = 'bench-web-80';
const PROXY_CPU = 0;
const LOAD_CPU = 1;
const CONNECTIONS = 32;
const BATCH_RECORDS = 10_000;
const BATCHES = 20;
/** ingress-nginx's defaults (flags.ts). */
const BUCKETS = {
  time: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  length: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
  size: [10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000],
};
const LUA_DIR = fileURLToPath(new URL('../lua/', import.meta.url));

function configuration(backendPort: number | undefined): Configuration {
  const ingress = { namespace: 'bench', name: 'web' };
  const annotations = {
    rewrite: { useRegex: false, sslRedirect: false, forceSslRedirect: false },
    backendProtocol: 'HTTP' as const,
    proxy: { bodySize: '1m', connectTimeout: 5, readTimeout: 60, sendTimeout: 60, buffering: 'off' as const },
    ipAccess: { allow: [], deny: [] },
  };
  const catchAll = {
    hostname: '_',
    certificate: undefined,
    tls: false,
    locations: [{ path: '/', match: 'prefix' as const, backend: undefined, ingress: undefined, annotations }],
  };
  return {
    servers:
      backendPort === undefined
        ? [catchAll]
        : [
            catchAll,
            {
              hostname: HOST,
              certificate: undefined,
              tls: false,
              locations: [{ path: '/', match: 'prefix', backend: BACKEND, ingress, annotations }],
            },
          ],
    backends:
      backendPort === undefined
        ? []
        : [
            {
              name: BACKEND,
              service: { namespace: 'bench', name: 'web', port: 80 },
              endpoints: [{ address: '127.0.0.1', port: backendPort }],
              balancing: { algorithm: 'round_robin', hashBy: undefined, affinity: undefined },
              canary: undefined,
            },
          ],
    certificates: [],
    secretFiles: [],
    defaultCertificate: undefined,
    defaultBackend: undefined,
    settings: { ...DEFAULT_SETTINGS, workerProcesses: 1, disableAccessLog: backendPort === undefined },
  };
}

// ---- 1. the controller's side ----

function syntheticBatch(token: number): string {
  const record = [HOST, 'bench', 'web', 'web', '', '/', 'GET', '200', '80', '0.002', '350', '0.000', '0.001', '0.001'];
  const statuses = ['200', '200', '200', '404', '503'];
  const fields: string[] = [];
  for (let i = 0; i < BATCH_RECORDS; i++) fields.push(...record.map((field, f) => (f === 7 ? statuses[i % statuses.length]! : field)));
  return `${token}\n${JSON.stringify(fields)}`;
}

function collectorCost(): { portico: number; promClient: number } {
  const token = 42;
  const payload = syntheticBatch(token);
  const labels = { controller_namespace: 'ingress', controller_class: 'k8s.io/ingress-nginx', controller_pod: 'bench' };
  const requests = new RequestMetrics(
    {
      labels,
      metricsPerHost: true,
      metricsPerUndefinedHost: false,
      reportStatusClasses: false,
      exclude: [],
      buckets: BUCKETS,
    },
    new Registry(),
  );
  requests.serve(configuration(1));

  const registry = new Registry();
  const labelNames = [...Object.keys(labels), 'status', 'method', 'path', 'namespace', 'ingress', 'service', 'canary', 'host'];
  const counter = new Counter({ name: 'requests', help: 'h', labelNames, registers: [registry] });
  const histograms = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map(
    (name, i) =>
      new Histogram({
        name,
        help: 'h',
        labelNames,
        registers: [registry],
        buckets: i < 4 ? BUCKETS.time : i < 6 ? BUCKETS.length : BUCKETS.size,
      }),
  );

  const time = (work: () => void): number => {
    work(); // warm-up
    const start = process.hrtime.bigint();
    for (let i = 0; i < BATCHES; i++) work();
    return Number(process.hrtime.bigint() - start) / 1000 / (BATCHES * BATCH_RECORDS);
  };
  const portico = time(() => {
    const batch = decodeBatch(payload, String(token));
    if (!batch.ok || requests.record(batch.records).counted !== BATCH_RECORDS) throw new Error('the synthetic batch was not counted');
  });
  const promClient = time(() => {
    const batch = decodeBatch(payload, String(token));
    if (!batch.ok) throw new Error('the synthetic batch does not decode');
    for (const record of batch.records) {
      const series = {
        ...labels,
        status: record.status,
        method: record.method,
        path: record.path,
        namespace: record.namespace,
        ingress: record.ingress,
        service: record.service,
        canary: record.canary,
        host: record.host,
      };
      counter.inc(series);
      const values = [
        record.upstreamConnectTime,
        record.upstreamHeaderTime,
        record.upstreamResponseTime,
        record.requestTime,
        record.bytesSent,
        record.requestLength,
        record.bytesSent,
      ];
      histograms.forEach((histogram, i) => values[i] !== undefined && histogram.observe(series, values[i]));
    }
  });
  return { portico, promClient };
}

// ---- 2. the hook alone ----

const HOOK_CALLS = 200_000;

/** A location with the variables a rendered one sets, whose content handler times the two ways of logging a request. */
function hookBenchConf(errorLog: string, luaDir: string, port: number): string {
  return `load_module /usr/share/nginx/modules/ndk_http_module.so;
load_module /usr/share/nginx/modules/ngx_http_lua_module.so;
worker_processes 1;
error_log ${errorLog} crit;
events { worker_connections 64; }
http {
  access_log off;
  lua_package_path "${luaDir}?.lua;;";
  init_by_lua_block { require("portico.monitor").init({ port = 9, token = 1, max_batch_size = ${HOOK_CALLS} }) }
  server {
    listen 127.0.0.1:${port};
    location / {
      set $namespace "bench"; set $ingress_name "web"; set $service_name "web"; set $location_path "/";
      set $portico_location "bench web web 80 /"; # what monitor.call() reads (renderLogVariables.ts)
      set $proxy_alternative_upstream_name "";
      content_by_lua_block {
        local monitor, cjson = require("portico.monitor"), require("cjson.safe")
        local function encoded_table()
          local v = ngx.var
          return cjson.encode({ host = v.host, namespace = v.namespace, ingress = v.ingress_name, service = v.service_name,
            canary = v.proxy_alternative_upstream_name, path = v.location_path, method = v.request_method, status = v.status,
            requestLength = tonumber(v.request_length), requestTime = tonumber(v.request_time), responseLength = tonumber(v.bytes_sent),
            upstreamLatency = tonumber(v.upstream_connect_time) or -1, upstreamHeaderTime = tonumber(v.upstream_header_time) or -1,
            upstreamResponseTime = tonumber(v.upstream_response_time) or -1 })
        end
        local function per_call(fn)
          ngx.update_time()
          local start = ngx.now()
          for _ = 1, ${HOOK_CALLS} do fn() end
          ngx.update_time()
          return (ngx.now() - start) / ${HOOK_CALLS} * 1e6
        end
        ngx.say(per_call(monitor.call), " ", per_call(encoded_table))
      }
    }
  }
}
`;
}

async function hookCost(dir: string, port: number): Promise<{ monitor: number; encodedTable: number }> {
  const nginx = new NginxProcess({ prefix: join(dir, 'hook'), logger: silentLogger() });
  try {
    await nginx.start(hookBenchConf(nginx.layout.errorLog, LUA_DIR, port));
    const answer = await httpGet({ port, path: '/', timeoutMs: 120_000 });
    const [monitor, encodedTable] = answer.body.trim().split(' ').map(Number);
    if (answer.status !== 200 || monitor === undefined || encodedTable === undefined)
      throw new Error(`hook benchmark: ${answer.status} ${answer.body}`);
    return { monitor, encodedTable };
  } finally {
    await nginx.stop();
  }
}

// ---- 3. nginx's side ----

interface Proxy {
  readonly name: string;
  readonly dataPlane: NginxDataPlane;
  readonly port: number;
}

interface Round {
  requestsPerSecond: number;
  nginxMicrosecondsPerRequest: number;
  controllerMicrosecondsPerRequest: number;
}

async function wrkRequests(port: number, seconds: number): Promise<number> {
  const { stdout } = await run(
    'taskset',
    [
      '--cpu-list',
      String(LOAD_CPU),
      'wrk',
      '--threads',
      '1',
      '--connections',
      String(CONNECTIONS),
      '--duration',
      `${seconds}s`,
      '--header',
      `Host: ${HOST}`,
      `http://127.0.0.1:${port}/`,
    ],
    { timeout: (seconds + 30) * 1000 },
  );
  const requests = /(\d+) requests in/.exec(stdout)?.[1];
  if (requests === undefined) throw new Error(`unexpected wrk output:\n${stdout}`);
  return Number(requests);
}

async function measure(proxy: Proxy, seconds: number): Promise<Round> {
  const pid = proxy.dataPlane.nginx.masterPid;
  if (pid === undefined) throw new Error(`${proxy.name}: nginx is not running`);
  const tree = await processTree(pid);
  await pin(tree, PROXY_CPU);
  const ticks = await cpuTicks(tree);
  const cpu = process.cpuUsage();
  const requests = await wrkRequests(proxy.port, seconds);
  await sleep(1500); // the last batch
  const controller = process.cpuUsage(cpu);
  const nginxSeconds = cpuSecondsBetween(ticks, await cpuTicks(tree)).total;
  return {
    requestsPerSecond: requests / seconds,
    nginxMicrosecondsPerRequest: (nginxSeconds * 1e6) / requests,
    controllerMicrosecondsPerRequest: (controller.user + controller.system) / requests,
  };
}

async function main(): Promise<void> {
  const { seconds, rounds } = roundOptions(3);
  if (availableParallelism() < 2) throw new Error('this benchmark pins nginx and the load to different CPUs: it needs 2');
  process.stdout.write(`machine before: ${describeMachine()}\n\n`);

  const collector = collectorCost();
  printTable(
    ['controller: decode + count one record', 'µs'],
    [
      ['Portico (src/metrics)', figure(collector.portico, 2)],
      ['prom-client Counter + 7 Histograms', figure(collector.promClient, 2)],
      ['ratio', `${figure(collector.promClient / collector.portico, 1)}×`],
    ],
  );

  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-metrics-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefixes below it
  const stops: (() => Promise<void>)[] = [];
  try {
    const ports = await freeLoopbackPorts(13);
    const hook = await hookCost(dir, ports[12]!);
    process.stdout.write('\n');
    printTable(
      [`nginx: log one request (${figure(HOOK_CALLS)} calls in one request)`, 'µs'],
      [
        ['monitor.call(): 14 values into the buffer', figure(hook.monitor, 2)],
        ['a table of them, JSON-encoded (as ingress-nginx)', figure(hook.encodedTable, 2)],
        ['ratio', `${figure(hook.encodedTable / hook.monitor, 1)}×`],
      ],
    );

    const dataPlane = (name: string, offset: number, monitor?: PrometheusMetrics['monitor']): NginxDataPlane => {
      const [http = 0, https = 0, defaultServer = 0, status = 0] = ports.slice(offset, offset + 4);
      const plane = new NginxDataPlane({
        prefix: join(dir, name),
        logger: silentLogger(),
        ports: { http, https, defaultServer, status },
        listenAddresses: ['127.0.0.1'],
        monitor,
        endpointGuard: { porticoPorts: [http, https, defaultServer, status], interfaceAddresses: [], refuseLoopbackEverywhere: false },
      });
      stops.push(() => plane.stop());
      return plane;
    };
    const backend = dataPlane('backend', 0);
    await backend.apply(configuration(undefined));
    await pin(await processTree(backend.nginx.masterPid!), LOAD_CPU);
    const backendPort = ports[2]!;

    const metrics = await PrometheusMetrics.start({
      enabled: true,
      controllerClass: 'k8s.io/ingress-nginx',
      metricsPerHost: true,
      metricsPerUndefinedHost: false,
      reportStatusClasses: false,
      exclude: [],
      buckets: BUCKETS,
      maxBatchSize: 10_000,
      statusPort: ports[11]!,
      logger: silentLogger(),
    });
    stops.push(() => metrics.close());
    const proxies: Proxy[] = [
      { name: 'without metrics', dataPlane: dataPlane('off', 4), port: ports[4]! },
      { name: '--enable-metrics', dataPlane: dataPlane('on', 8, metrics.monitor), port: ports[8]! },
    ];
    for (const proxy of proxies) {
      const config = configuration(backendPort);
      const result = await (await proxy.dataPlane.apply(config)).done;
      if (result.outcome === 'superseded') throw new Error(`${proxy.name}: the first configuration cannot be superseded`);
      if (proxy.name === '--enable-metrics') {
        metrics.live(config);
        metrics.applied(config, result);
      }
      const probe = await httpGet({ port: proxy.port, host: HOST, path: '/' });
      if (probe.status !== 404) throw new Error(`${proxy.name}: expected the backend's 404, got ${probe.status}`);
      await measure(proxy, 2); // warm-up
    }

    const results = new Map<Proxy, Round[]>(proxies.map((proxy) => [proxy, []]));
    for (let round = 0; round < rounds; round++) {
      for (const proxy of round % 2 === 0 ? proxies : [...proxies].reverse()) {
        const result = await measure(proxy, seconds);
        results.get(proxy)!.push(result);
        process.stderr.write(
          `round ${round + 1} ${proxy.name}: ${figure(result.requestsPerSecond)} req/s, ` +
            `nginx ${figure(result.nginxMicrosecondsPerRequest, 1)} µs/req, controller ${figure(result.controllerMicrosecondsPerRequest, 2)} µs/req\n`,
        );
      }
    }
    const medianOf = (proxy: Proxy, key: keyof Round): number => median(results.get(proxy)!.map((result) => result[key]));
    process.stdout.write(
      `\nwrk -t1 -c${CONNECTIONS} -d${seconds}s and the backend on CPU ${LOAD_CPU}; each proxy one worker on CPU ${PROXY_CPU}; ` +
        `median of ${rounds} rounds; records per batch at most 10,000, ${RECORD_FIELDS.length} fields each\n\n`,
    );
    printTable(
      ['proxy', 'requests/s', 'nginx CPU µs/request', 'controller CPU µs/request'],
      proxies.map((proxy) => [
        proxy.name,
        figure(medianOf(proxy, 'requestsPerSecond')),
        figure(medianOf(proxy, 'nginxMicrosecondsPerRequest'), 1),
        figure(medianOf(proxy, 'controllerMicrosecondsPerRequest'), 2),
      ]),
    );
    const [off, on] = proxies as [Proxy, Proxy];
    process.stdout.write(
      `\nthe monitor hook: ${figure(medianOf(on, 'nginxMicrosecondsPerRequest') - medianOf(off, 'nginxMicrosecondsPerRequest'), 1)} µs ` +
        `of nginx CPU per request (${figure((medianOf(on, 'nginxMicrosecondsPerRequest') / medianOf(off, 'nginxMicrosecondsPerRequest') - 1) * 100, 1)} %)\n`,
    );
  } finally {
    for (const stop of stops.reverse()) await stop();
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

await main();
