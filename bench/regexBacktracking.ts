/**
 * Issue 12, item 5: what a request that makes a regex location backtrack
 * costs nginx, and what 8 clients sending such requests do to another host's
 * latency, in three data planes: before (pcre_jit off, PCRE2's default match
 * limit of 10,000,000, which nginx leaves in place), with pcre_jit on only,
 * and as Portico renders now (pcre_jit on, and the location's pattern led by
 * `(*LIMIT_MATCH=100000)`, render/regex.ts):
 *   node --import tsx bench/regexBacktracking.ts [--requests 200] [--neighbour 100]
 *
 * One nginx per row, hand-written so that only the regex differs from a
 * request to a plain location: two workers (worker_processes auto on this
 * 2-core machine), a host whose regex location is written as Portico renders
 * one (`location ~* "^<path>"`), and a neighbour host with a plain `location /`;
 * both answer `return 200`, so no backend runs and all CPU is nginx's.
 * Patterns:
 *   - `/(a+)+$`, the finding's: nested repetition, exponential in the length
 *     of `/aaa...a!`. Portico's model refuses it now; the row shows what the
 *     data plane alone (JIT) changes.
 *   - `/(.*)-(.*)-(.*)-(.*)=`, the worst kind Portico still admits: no
 *     nested or alternating repetition, but four unbounded groups in a row are
 *     O(n^4) on `/=---...` (the `=` defeats PCRE2's required-character check),
 *     so a match runs into the match limit.
 *   - `/api/v[0-9]+/(.*)`, an ordinary one, for scale.
 * Every request loop is bounded in count and has a per-request timeout; all
 * traffic is on loopback.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnGuarded } from '../test/support/childProcess.js';
import { eventually } from '../test/support/eventually.js';
import { freeLoopbackPorts } from '../test/support/freePort.js';
import { httpGet } from '../test/support/httpGet.js';
import { matchLimited } from '../src/dataplane/nginx/render/regex.js';
import { describeMachine } from './support/machine.js';
import { positiveInteger } from './support/options.js';
import { cpuSecondsBetween, cpuTicks, processTree, readPidFile } from './support/processCpu.js';
import { median, percentile } from './support/statistics.js';
import { figure, printTable } from './support/table.js';

const NGINX = '/usr/sbin/nginx';
const HOSTILE_CLIENTS = 8;
/** A hostile client stops after this many requests even if the neighbour is not done. */
const HOSTILE_REQUEST_CAP = 5_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** The CPU measurement stops after --requests hostile requests or this long, whichever comes first. */
const CPU_MEASUREMENT_MS = 10_000;

interface DataPlane {
  name: string;
  jit: boolean;
  matchLimit: boolean;
}

const DATA_PLANES: readonly DataPlane[] = [
  { name: 'before', jit: false, matchLimit: false },
  { name: 'pcre_jit on', jit: true, matchLimit: false },
  { name: 'Portico now (JIT + limit)', jit: true, matchLimit: true },
];

interface Case {
  name: string;
  pattern: string;
  /** A request path that makes the pattern work hardest. */
  hostilePath: string;
}

const CASES: readonly Case[] = [
  { name: 'nested (a+)+$ (refused now)', pattern: '/(a+)+$', hostilePath: `/${'a'.repeat(25)}!` },
  { name: 'four (.*) in a row (admitted)', pattern: '/(.*)-(.*)-(.*)-(.*)=', hostilePath: `/=${'-'.repeat(4000)}` },
  { name: 'ordinary /api/v[0-9]+/(.*)', pattern: '/api/v[0-9]+/(.*)', hostilePath: `/api/v${'1'.repeat(4000)}x` },
];

const { values } = parseArgs({ options: { requests: { type: 'string', default: '200' }, neighbour: { type: 'string', default: '100' } } });
const hostileRequests = positiveInteger('--requests', values.requests);
const neighbourRequests = positiveInteger('--neighbour', values.neighbour);

function nginxConf(dir: string, port: number, pattern: string, plane: DataPlane): string {
  const quoted = JSON.stringify(plane.matchLimit ? matchLimited(`^${pattern}`) : `^${pattern}`);
  return `worker_processes 2;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log crit;
pcre_jit ${plane.jit ? 'on' : 'off'};
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp;
  server { listen 127.0.0.1:${port}; server_name hostile.example; location ~* ${quoted} { return 200; } location / { return 404; } }
  server { listen 127.0.0.1:${port}; server_name neighbour.example; location / { return 200; } }
}
`;
}

interface Row {
  cpuMsPerHostile: number;
  statuses: string;
  neighbourIdle: number[];
  neighbourLoaded: number[];
}

async function measure(testCase: Case, plane: DataPlane): Promise<Row> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-regex-'));
  const [port = 0] = await freeLoopbackPorts(1);
  await writeFile(join(dir, 'nginx.conf'), nginxConf(dir, port, testCase.pattern, plane));
  const args = ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'];
  const nginx = await spawnGuarded('nginx', NGINX, args, join(dir, 'nginx.out'));
  try {
    const neighbour = async (): Promise<number> => {
      const started = performance.now();
      const result = await httpGet({ port, host: 'neighbour.example', path: '/', timeoutMs: REQUEST_TIMEOUT_MS });
      if (result.status !== 200) throw new Error(`neighbour answered ${result.status}`);
      return performance.now() - started;
    };
    const hostile = () => httpGet({ port, host: 'hostile.example', path: testCase.hostilePath, timeoutMs: REQUEST_TIMEOUT_MS });
    await eventually(async () => void (await neighbour()), { timeoutMs: 10_000 });
    const pids = await processTree(await readPidFile(join(dir, 'nginx.pid')));

    const before = await cpuTicks(pids);
    const statuses = new Map<number, number>();
    const deadline = performance.now() + CPU_MEASUREMENT_MS;
    let sent = 0;
    for (; sent < hostileRequests && performance.now() < deadline; sent++) {
      const { status } = await hostile();
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    const cpu = cpuSecondsBetween(before, await cpuTicks(pids));

    const neighbourIdle: number[] = [];
    for (let n = 0; n < neighbourRequests; n++) neighbourIdle.push(await neighbour());

    let done = false;
    const attackers = Array.from({ length: HOSTILE_CLIENTS }, async () => {
      for (let n = 0; n < HOSTILE_REQUEST_CAP && !done; n++) await hostile();
    });
    const neighbourLoaded: number[] = [];
    try {
      for (let n = 0; n < neighbourRequests; n++) neighbourLoaded.push(await neighbour());
    } finally {
      done = true;
      await Promise.all(attackers);
    }
    return {
      cpuMsPerHostile: (cpu.total * 1000) / sent,
      statuses: [...statuses].map(([status, count]) => `${count}× ${status}`).join(', '),
      neighbourIdle,
      neighbourLoaded,
    };
  } finally {
    await nginx.stop(5_000);
    await rm(dir, { recursive: true, force: true });
  }
}

process.stdout.write(`${describeMachine()}\n\n`);
const rows: string[][] = [];
for (const testCase of CASES) {
  for (const plane of DATA_PLANES) {
    const row = await measure(testCase, plane);
    rows.push([
      `${testCase.name}: ${plane.name}`,
      figure(row.cpuMsPerHostile, 2),
      row.statuses,
      figure(median(row.neighbourIdle), 2),
      figure(median(row.neighbourLoaded), 2),
      figure(percentile(row.neighbourLoaded, 90), 2),
    ]);
  }
}
printTable(
  [
    'pattern',
    'worker CPU ms / hostile request',
    'hostile answers',
    'neighbour p50 ms, idle',
    `p50 ms, ${HOSTILE_CLIENTS} hostile clients`,
    'p90 ms',
  ],
  rows,
);
