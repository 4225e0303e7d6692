/**
 * Issue 18: what the keep-alive drain's header filter (lua/portico/keepalive_drain.lua,
 * one shared dict lookup per response outside a reload) costs a proxied request:
 * nginx CPU per request through Portico's rendered nginx.conf as it is, beside the
 * same file without the `header_filter_by_lua_block`, one worker each:
 *   node --import tsx bench/keepAliveDrainCost.ts [--duration 10] [--rounds 5]
 *
 * Both sides are support/porticoConfVariant.ts's "static upstream" variant of one
 * rendering (so Lua's balancer, the same for both, adds no noise); the only
 * difference between them is the filter. The proxies are pinned to CPU 0, the
 * backend (nginx, `return 200`) and wrk (one thread, 32 connections) to CPU 1;
 * rounds alternate the order; medians are printed.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NginxDataPlane } from '../src/dataplane/nginxDataPlane.js';
import type { PrefixLayout } from '../src/dataplane/nginx/process/prefixLayout.js';
import { silentLogger } from '../src/log/logger.js';
import { backend, configuration, location, server } from '../test/dataplane/nginx/render/fixtures.js';
import { freeLoopbackPorts } from '../test/support/freePort.js';
import { describeMachine } from './support/machine.js';
import { roundOptions } from './support/options.js';
import { porticoConfVariant } from './support/porticoConfVariant.js';
import { cpuSecondsBetween, cpuTicks, pin, processTree } from './support/processCpu.js';
import { median } from './support/statistics.js';
import { figure, printTable } from './support/table.js';
import { startThrowAwayNginx } from './support/throwAwayNginx.js';
import { runWrk } from './support/wrk.js';

const PROXY_CPU = 0;
const LOAD_CPU = 1;
const HOST = 'bench.local';
const WARM_UP_SECONDS = 2;
const FILTER = /\n\s*header_filter_by_lua_block \{\n\s*portico_keepalive_drain\.header_filter\(\)\n\s*\}/;

interface Proxy {
  readonly name: string;
  readonly port: number;
  readonly masterPid: number;
}

function backendConf(layout: PrefixLayout, port: number): string {
  return `worker_processes 1;
error_log ${layout.errorLog} warn;
events { worker_connections 1024; }
http {
    client_body_temp_path ${layout.temp.clientBody};
    proxy_temp_path ${layout.temp.proxy};
    fastcgi_temp_path ${layout.temp.fastcgi};
    uwsgi_temp_path ${layout.temp.uwsgi};
    scgi_temp_path ${layout.temp.scgi};
    access_log off;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:${port};
        location / { return 200 "hello\\n"; }
    }
}
`;
}

/** nginx CPU µs per request (user, total) over one wrk run. */
async function measure(proxy: Proxy, seconds: number): Promise<{ user: number; total: number; rps: number }> {
  const pids = await processTree(proxy.masterPid);
  await pin(pids, PROXY_CPU);
  const before = await cpuTicks(pids);
  const load = await runWrk({ port: proxy.port, host: HOST, seconds, connections: 32, cpu: LOAD_CPU });
  const used = cpuSecondsBetween(before, await cpuTicks(pids));
  return { user: (used.user * 1e6) / load.requests, total: (used.total * 1e6) / load.requests, rps: load.requestsPerSecond };
}

async function main(): Promise<void> {
  const { seconds, rounds } = roundOptions(5);
  if (availableParallelism() < 2) throw new Error('this benchmark pins the proxies and the load to different CPUs: it needs 2');
  process.stdout.write(`machine before: ${describeMachine()}\n`);
  const dir = await mkdtemp(join(tmpdir(), 'portico-drain-cost-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
  const cleanups: (() => Promise<void>)[] = [async () => rm(dir, { recursive: true, force: true })];
  try {
    const [backendPort = 0, http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(5);
    const upstream = await startThrowAwayNginx((layout) => backendConf(layout, backendPort));
    cleanups.unshift(upstream.stop);
    const prefix = join(dir, 'portico');
    const ports = { http, https, defaultServer, status };
    const dataPlane = new NginxDataPlane({
      prefix,
      logger: silentLogger(),
      ports,
      listenAddresses: ['127.0.0.1'],
      endpointGuard: { porticoPorts: Object.values(ports), interfaceAddresses: [], refuseLoopbackEverywhere: false },
    });
    cleanups.unshift(() => dataPlane.stop());
    const web = backend('default-backend-80', [{ address: '127.0.0.1', port: backendPort }]);
    await dataPlane.apply(
      configuration({
        servers: [server('_', []), server(HOST, [location('/', 'prefix', web.name)])],
        backends: [web],
        settings: { workerProcesses: 1 },
      }),
    );
    const conf = await readFile(dataPlane.nginx.layout.configFile, 'utf8');
    if (!FILTER.test(conf)) throw new Error("Portico's nginx.conf has no keep-alive drain filter of the expected shape");
    const proxies: Proxy[] = [];
    for (const [name, text] of [
      ['without the filter (before)', conf.replace(FILTER, '')],
      ['with the filter, no drain (now)', conf],
    ] as const) {
      const [vHttp = 0, vHttps = 0, vDefault = 0, vStatus = 0] = await freeLoopbackPorts(4);
      const variant = await startThrowAwayNginx((layout) =>
        porticoConfVariant(
          text,
          { prefix, ports },
          { prefix: layout.prefix, ports: { http: vHttp, https: vHttps, defaultServer: vDefault, status: vStatus } },
          'static upstream',
          { address: '127.0.0.1', port: backendPort },
        ),
      );
      cleanups.unshift(variant.stop);
      const masterPid = variant.nginx.masterPid;
      if (masterPid === undefined) throw new Error(`${name}: nginx is not running`);
      proxies.push({ name, port: vHttp, masterPid });
    }
    await pin(await processTree(upstream.nginx.masterPid ?? 0), LOAD_CPU);
    for (const proxy of proxies) await measure(proxy, WARM_UP_SECONDS);
    const results = new Map(proxies.map((proxy) => [proxy, [] as { user: number; total: number; rps: number }[]]));
    for (let round = 0; round < rounds; round++) {
      for (const proxy of round % 2 === 0 ? proxies : [...proxies].reverse()) results.get(proxy)!.push(await measure(proxy, seconds));
    }
    const of = (proxy: Proxy, pick: (r: { user: number; total: number; rps: number }) => number): number =>
      median(results.get(proxy)!.map(pick));
    const [before, now] = proxies as [Proxy, Proxy];
    printTable(
      ["Portico's nginx.conf (static upstream variant)", 'requests/s', 'nginx CPU µs/request', 'of it user µs'],
      proxies.map((proxy) => [
        proxy.name,
        figure(of(proxy, (r) => r.rps)),
        figure(
          of(proxy, (r) => r.total),
          2,
        ),
        figure(
          of(proxy, (r) => r.user),
          2,
        ),
      ]),
    );
    process.stdout.write(
      `now/before: CPU per request ×${figure(of(now, (r) => r.total) / of(before, (r) => r.total), 3)}, ` +
        `user ×${figure(of(now, (r) => r.user) / of(before, (r) => r.user), 3)} (median of ${rounds} rounds of ${seconds} s)\n`,
    );
    process.stdout.write(`machine after: ${describeMachine()}\n`);
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

await main();
