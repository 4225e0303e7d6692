/**
 * Issue 18: what the keep-alive drain (lua/portico/keepalive_drain.lua) costs a
 * proxied request outside a reload: nginx CPU per request through Portico as
 * main renders and runs it, beside this branch's, one worker each, side by side:
 *   node --import tsx bench/keepAliveDrainCost.ts [--duration 10] [--rounds 5] [--main /work/main]
 *
 * Each side is a whole NginxDataPlane of its own checkout (its render, its
 * lua/ directory, its pushed backends), so the comparison is of everything a
 * proxied request runs: on this branch the balancer's first attempt also reads
 * the drain's flag (one shared dict lookup). The proxies are pinned to CPU 0,
 * the backend (nginx, `return 200`) and wrk (one thread, 32 connections) to
 * CPU 1; rounds alternate the order; medians are printed.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { NginxDataPlane } from '../src/dataplane/nginxDataPlane.js';
import type { PrefixLayout } from '../src/dataplane/nginx/process/prefixLayout.js';
import { silentLogger } from '../src/log/logger.js';
import { backend, configuration, location, server } from '../test/dataplane/nginx/render/fixtures.js';
import { freeLoopbackPorts } from '../test/support/freePort.js';
import { describeMachine } from './support/machine.js';
import { positiveInteger } from './support/options.js';
import { cpuSecondsBetween, cpuTicks, pin, processTree } from './support/processCpu.js';
import { median } from './support/statistics.js';
import { figure, printTable } from './support/table.js';
import { startThrowAwayNginx, tempPathDirectives } from './support/throwAwayNginx.js';
import { runWrk } from './support/wrk.js';

const PROXY_CPU = 0;
const LOAD_CPU = 1;
const HOST = 'bench.local';
const WARM_UP_SECONDS = 2;

type DataPlaneClass = typeof NginxDataPlane;

interface Proxy {
  readonly name: string;
  readonly port: number;
  readonly masterPid: number;
  readonly conf: string;
  readonly folder: string;
}

interface Sample {
  readonly user: number;
  readonly total: number;
  readonly rps: number;
}

function backendConf(layout: PrefixLayout, port: number): string {
  return `worker_processes 1;
error_log ${layout.errorLog} warn;
events { worker_connections 1024; }
http {
${tempPathDirectives(layout)}
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
async function measure(proxy: Proxy, seconds: number): Promise<Sample> {
  const pids = await processTree(proxy.masterPid);
  await pin(pids, PROXY_CPU);
  const before = await cpuTicks(pids);
  const load = await runWrk({ port: proxy.port, host: HOST, seconds, connections: 32, cpu: LOAD_CPU });
  const used = cpuSecondsBetween(before, await cpuTicks(pids));
  return { user: (used.user * 1e6) / load.requests, total: (used.total * 1e6) / load.requests, rps: load.requestsPerSecond };
}

async function startProxy(
  name: string,
  folder: string,
  DataPlane: DataPlaneClass,
  dir: string,
  backendPort: number,
  cleanups: (() => Promise<void>)[],
): Promise<Proxy> {
  const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
  const ports = { http, https, defaultServer, status };
  const dataPlane = new DataPlane({
    prefix: join(dir, folder),
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
  const masterPid = dataPlane.nginx.masterPid;
  if (masterPid === undefined) throw new Error(`${name}: nginx is not running`);
  return { name, folder, port: http, masterPid, conf: await readFile(dataPlane.nginx.layout.configFile, 'utf8') };
}

/**
 * The flag read alone, in a throw-away nginx loading the same Lua module: ns
 * per `dict:get` of an absent key (what a proxied request pays outside a
 * drain) over an empty loop, compiled by LuaJIT and interpreted (jit.off: an
 * upper bound, as the balancer's code need not be compiled); CPU time (os.clock), not wall time.
 */
async function flagReadNs(portico: string): Promise<{ compiled: number; interpreted: number }> {
  const loads = portico.split('\n').filter((line) => line.startsWith('load_module '));
  const [port = 0] = await freeLoopbackPorts(1);
  const lua = `
            local dict = ngx.shared.flag_read
            local absent = {}
            local function run(get, n)
              local found = 0
              local started = os.clock()
              for _ = 1, n do
                if get(dict, "keepalive_drain") then found = found + 1 end
              end
              return (os.clock() - started) * 1e9 / n, found
            end
            local function shdict_get(d, key) return d:get(key) end
            local function table_get(_, key) return absent[key] end
            local n = 3000000
            local compiled = run(shdict_get, n) - run(table_get, n)
            jit.off(run)
            jit.off(shdict_get)
            jit.off(table_get)
            local m = 300000
            local interpreted = run(shdict_get, m) - run(table_get, m)
            ngx.say(compiled, " ", interpreted)`;
  const nginx = await startThrowAwayNginx(
    (layout) => `${loads.join('\n')}
worker_processes 1;
error_log ${layout.errorLog} warn;
events { worker_connections 64; }
http {
${tempPathDirectives(layout)}
    access_log off;
    lua_shared_dict flag_read 1m;
    server {
        listen 127.0.0.1:${port};
        location / { content_by_lua_block {${lua}
        } }
    }
}
`,
  );
  try {
    const master = nginx.nginx.masterPid;
    if (master !== undefined) await pin(await processTree(master), PROXY_CPU);
    const response = await fetch(`http://127.0.0.1:${port}/`);
    const [compiled = NaN, interpreted = NaN] = (await response.text()).trim().split(' ').map(Number);
    return { compiled, interpreted };
  } finally {
    await nginx.stop();
  }
}

/** The file with its prefix and ports named alike on both sides. */
function normalised(proxy: Proxy, dir: string): string {
  return proxy.conf
    .split(join(dir, proxy.folder))
    .join('PREFIX')
    .replace(/\b(127\.0\.0\.1:|status_port = |portico_ports = \{ )[\d, ]+/g, '$1PORTS');
}

/** The lines of `b` not in `a`, and of `a` not in `b`: what the two nginx.conf differ by (each its own lua_package_path too). */
function lineDifference(a: string, b: string): { added: string[]; removed: string[] } {
  const count = (text: string): Map<string, number> => {
    const lines = new Map<string, number>();
    for (const line of text.split('\n')) lines.set(line, (lines.get(line) ?? 0) + 1);
    return lines;
  };
  const [left, right] = [count(a), count(b)];
  const added: string[] = [];
  const removed: string[] = [];
  for (const [line, n] of right) for (let i = left.get(line) ?? 0; i < n; i++) added.push(line.trim());
  for (const [line, n] of left) for (let i = right.get(line) ?? 0; i < n; i++) removed.push(line.trim());
  return { added, removed };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '5' },
      main: { type: 'string', default: '/work/main' },
    },
    strict: true,
  });
  const seconds = positiveInteger('--duration', values.duration);
  const rounds = positiveInteger('--rounds', values.rounds);
  if (availableParallelism() < 2) throw new Error('this benchmark pins the proxies and the load to different CPUs: it needs 2');
  // The other checkout's data plane renders its own nginx.conf and points it at its own lua/.
  const mainModule = (await import(join(values.main, 'src/dataplane/nginxDataPlane.ts'))) as { NginxDataPlane: DataPlaneClass };
  process.stdout.write(`machine before: ${describeMachine()}\n`);
  const dir = await mkdtemp(join(tmpdir(), 'portico-drain-cost-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
  const cleanups: (() => Promise<void>)[] = [async () => rm(dir, { recursive: true, force: true })];
  try {
    const [backendPort = 0] = await freeLoopbackPorts(1);
    const upstream = await startThrowAwayNginx((layout) => backendConf(layout, backendPort));
    cleanups.unshift(upstream.stop);
    const proxies = [
      await startProxy(`main (${values.main})`, 'main', mainModule.NginxDataPlane, dir, backendPort, cleanups),
      await startProxy('this branch (drain flag read in the balancer)', 'branch', NginxDataPlane, dir, backendPort, cleanups),
    ] as const;
    const difference = lineDifference(normalised(proxies[0], dir), normalised(proxies[1], dir));
    process.stdout.write(
      `nginx.conf: this branch adds ${difference.added.length} lines to main's (${JSON.stringify(difference.added.slice(0, 12))}) ` +
        `and removes ${difference.removed.length} (${JSON.stringify(difference.removed.slice(0, 12))})\n`,
    );
    await pin(await processTree(upstream.nginx.masterPid ?? 0), LOAD_CPU);
    for (const proxy of proxies) await measure(proxy, WARM_UP_SECONDS);
    const results = new Map<Proxy, Sample[]>(proxies.map((proxy) => [proxy, []]));
    for (let round = 0; round < rounds; round++) {
      for (const proxy of round % 2 === 0 ? proxies : [...proxies].reverse()) results.get(proxy)?.push(await measure(proxy, seconds));
    }
    const of = (proxy: Proxy, pick: (sample: Sample) => number): number => median((results.get(proxy) ?? []).map(pick));
    printTable(
      ['Portico, one worker', 'requests/s', 'nginx CPU µs/request', 'of it user µs', 'per round µs/request'],
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
        (results.get(proxy) ?? []).map((r) => r.total.toFixed(2)).join(' '),
      ]),
    );
    const [before, now] = proxies;
    process.stdout.write(
      `branch/main: CPU per request ×${figure(of(now, (r) => r.total) / of(before, (r) => r.total), 3)} ` +
        `(${figure(of(now, (r) => r.total) - of(before, (r) => r.total), 3)} µs), ` +
        `user ×${figure(of(now, (r) => r.user) / of(before, (r) => r.user), 3)} (median of ${rounds} rounds of ${seconds} s)\n`,
    );
    const read = await flagReadNs(proxies[1].conf);
    process.stdout.write(
      `the flag read alone (dict:get of an absent key, less a Lua table lookup): ${figure(read.compiled, 1)} ns compiled, ` +
        `${figure(read.interpreted, 1)} ns interpreted\n`,
    );
    process.stdout.write(`machine after: ${describeMachine()}\n`);
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

await main();
