// A quick, bounded comparison (the real benchmark is bench/proxyThroughput.ts):
// requests/s and nginx worker CPU per request through the Lua balancer
// (balancer_by_lua) against a plain `upstream` block, both
// to the same `return 200` backend inside the same nginx. Figures are printed
// as test diagnostics; only correctness is asserted, never speed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { cpuTicks, luaProblems, missingLuaNginx, pushBackends, startLuaNginx, type RunningLuaNginx } from './luaNginx.js';

const run = promisify(execFile);

const WRK = '/usr/bin/wrk';
const CONNECTIONS = 32;
const WARM_UP_SECONDS = 1;
const ROUND_SECONDS = 2;
const ROUNDS = 3;
const CLOCK_TICKS_PER_SECOND = 100;

interface LoadResult {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly failures: number;
  /** CPU time of all nginx workers per request (the backend is in the same workers, equally for both paths). */
  readonly workerCpuMicrosPerRequest: number;
}

let nginx: RunningLuaNginx;

before(async () => {
  nginx = await startLuaNginx();
});

after(async () => {
  await nginx?.stop();
});

const workerCpu = (): number => nginx.workerPids().reduce((sum, pid) => sum + cpuTicks(pid), 0);

async function load(path: string, seconds: number): Promise<LoadResult> {
  const cpuBefore = workerCpu();
  const { stdout } = await run(WRK, ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '2s', `http://127.0.0.1:${nginx.ports.http}${path}`],
    { timeout: (seconds + 10) * 1000 });
  const cpuTicksUsed = workerCpu() - cpuBefore;
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? NaN);
  const requestsPerSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const failures = non2xx + (socketErrors === null ? 0 : socketErrors.slice(1).reduce((sum, count) => sum + Number(count), 0));
  assert.ok(requests > 0 && Number.isFinite(requestsPerSecond), `wrk output: ${stdout}`);
  return { requests, requestsPerSecond, failures, workerCpuMicrosPerRequest: ((cpuTicksUsed / CLOCK_TICKS_PER_SECOND) * 1e6) / requests };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

test('throughput: Lua balancer vs a static upstream to the same backend', {
  timeout: 120_000,
  skip: missingLuaNginx ?? (existsSync(WRK) ? undefined : `${WRK} is not installed (Debian package wrk)`),
}, async (t) => {
  const pushed = await pushBackends(nginx.ports.status, [{ name: 'cheap', endpoints: [{ address: '127.0.0.1', port: nginx.ports.cheapBackend }] }]);
  assert.equal(pushed.status, 201, pushed.body);
  const paths = { lua: '/to/cheap/', static: '/static/' } as const;
  for (const path of Object.values(paths)) await load(path, WARM_UP_SECONDS);

  const results: Record<keyof typeof paths, LoadResult[]> = { lua: [], static: [] };
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always runs on a warmer machine.
    const order: (keyof typeof paths)[] = round % 2 === 0 ? ['lua', 'static'] : ['static', 'lua'];
    for (const name of order) results[name].push(await load(paths[name], ROUND_SECONDS));
  }

  for (const [name, rounds] of Object.entries(results)) {
    for (const result of rounds) assert.equal(result.failures, 0, `${name}: failed requests`);
  }
  const rps = { lua: median(results.lua.map((r) => r.requestsPerSecond)), static: median(results.static.map((r) => r.requestsPerSecond)) };
  const cpu = { lua: median(results.lua.map((r) => r.workerCpuMicrosPerRequest)), static: median(results.static.map((r) => r.workerCpuMicrosPerRequest)) };
  t.diagnostic(`wrk -t1 -c${CONNECTIONS}, ${ROUNDS} rounds of ${ROUND_SECONDS}s, ${nginx.workerPids().length} workers, medians`);
  t.diagnostic(`lua balancer: ${rps.lua.toFixed(0)} req/s, ${cpu.lua.toFixed(1)} µs worker CPU/request`);
  t.diagnostic(`static upstream: ${rps.static.toFixed(0)} req/s, ${cpu.static.toFixed(1)} µs worker CPU/request`);
  t.diagnostic(`lua/static: ${(rps.lua / rps.static).toFixed(3)} × req/s, ${(cpu.lua / cpu.static).toFixed(3)} × CPU/request`);
  assert.deepEqual(luaProblems(nginx.errorLog()), []);
});
