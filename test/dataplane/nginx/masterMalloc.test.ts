// The master's malloc settings (masterMalloc.ts) and the workers' reset
// (lua/portico/worker_malloc.lua), with a real nginx started as the data plane
// starts it: the master's memory after reloads stays what it was after start
// (with glibc's defaults it doubles at the first reload: the replaced
// configuration stays resident), and a worker allocates with glibc's defaults.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { MasterProcess } from '../../../src/dataplane/nginx/process/masterProcess.js';
import { LUA_MODULES, LUA_ROOT, missingLuaNginx, NGINX_BINARY } from '../../lua/luaNginx.js';
import { eventually } from '../../support/eventually.js';
import { freeLoopbackPorts } from '../../support/freePort.js';
import { httpGet } from '../../support/httpGet.js';
import { nginxWorkers } from '../../support/nginxWorkers.js';

/** Enough locations that their configuration is most of the master's memory (about 8 KiB each). */
const LOCATIONS = 4_000;
const RELOADS = 3;
/** Held at once, each below glibc's default mmap threshold (128 KiB) and above the master's (4 KiB). */
const PROBES = 8;
const PROBE_BYTES = 100 * 1024;

// How many of PROBES allocations, held together, glibc served with a mapping of their own.
const PROBE_LUA = `
local ffi = require("ffi")
ffi.cdef([[ void *malloc(size_t size); void free(void *pointer); ]])
function mapped_allocations()
  local pointers, mapped = {}, 0
  for i = 1, ${PROBES} do
    pointers[i] = ffi.C.malloc(${PROBE_BYTES})
    -- glibc keeps the chunk's size and flags just before it; 2 is IS_MMAPPED.
    if bit.band(tonumber(ffi.cast("size_t *", pointers[i])[-1]), 2) ~= 0 then mapped = mapped + 1 end
  end
  for i = 1, ${PROBES} do ffi.C.free(pointers[i]) end
  return mapped
end`;

let prefix: string;
let master: MasterProcess | undefined;
let port: number;

function configuration(): string {
  const locations = Array.from(
    { length: LOCATIONS },
    (_, i) => `    location = "/path-${i}" { set $namespace "team-${i}"; set $service_name "web-${i}"; proxy_pass http://127.0.0.1:9; }`,
  );
  return [
    ...LUA_MODULES.map((module) => `load_module "${module}";`),
    `pid "${join(prefix, 'logs', 'nginx.pid')}";`,
    'daemon off;',
    'worker_processes 1;',
    'events {}',
    'http {',
    `  lua_package_path "${LUA_ROOT}?.lua;;";`,
    '  lua_shared_dict probe 1m;',
    `  init_by_lua_block { ${PROBE_LUA}`,
    '    ngx.shared.probe:set("master", mapped_allocations())',
    '    portico_worker_malloc = require("portico.worker_malloc") }',
    '  init_worker_by_lua_block { portico_worker_malloc.init_worker() }',
    '  access_log off;',
    `  server { listen 127.0.0.1:${port};`,
    '    location / { content_by_lua_block { ngx.say(ngx.shared.probe:get("master"), " ", mapped_allocations()) } }',
    ...locations,
    '  }',
    '}',
  ].join('\n');
}

async function masterRssKiB(): Promise<number> {
  const rollup = await readFile(`/proc/${master?.pid}/smaps_rollup`, 'utf8');
  return Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1]);
}

/** The pids of the workers once the master runs exactly one and no worker of before is left. */
async function settledWorkers(before: readonly number[]): Promise<number[]> {
  return eventually(async () => {
    const pids = (await nginxWorkers(prefix)).map((worker) => worker.pid);
    assert.equal(pids.length, 1, 'one worker, none retiring');
    assert.ok(!before.includes(pids[0] as number), 'a worker of the last reload');
    return pids;
  });
}

before(async () => {
  if (missingLuaNginx !== undefined) return;
  prefix = await mkdtemp(join(tmpdir(), 'portico-malloc-'));
  await mkdir(join(prefix, 'logs'));
  [port] = (await freeLoopbackPorts(1)) as [number];
  await writeFile(join(prefix, 'nginx.conf'), configuration());
  master = await MasterProcess.spawn(NGINX_BINARY, [
    '-p',
    prefix,
    '-c',
    join(prefix, 'nginx.conf'),
    '-e',
    join(prefix, 'logs', 'error.log'),
  ]);
});
after(async () => {
  await master?.stop(5_000);
  if (prefix !== undefined) await rm(prefix, { recursive: true, force: true });
});

test("the master's memory after reloads is what it was after start", { skip: missingLuaNginx }, async () => {
  let workers = await settledWorkers([]);
  const afterStart = await masterRssKiB();
  for (let reload = 0; reload < RELOADS; reload++) {
    master?.signal('SIGHUP');
    workers = await settledWorkers(workers);
  }
  const afterReloads = await masterRssKiB();
  assert.ok(afterReloads <= afterStart * 1.15, `master RSS ${afterStart} KiB after start, ${afterReloads} KiB after ${RELOADS} reloads`);
});

test("the master maps allocations from 4 KiB; a worker allocates with glibc's defaults", { skip: missingLuaNginx }, async () => {
  const [masterMapped, workerMapped] = (await eventually(async () => (await httpGet({ port, path: '/' })).body))
    .trim()
    .split(' ')
    .map(Number);
  assert.ok((masterMapped ?? 0) >= PROBES / 2, `${masterMapped} of ${PROBES} mapped in the master`);
  assert.equal(workerMapped, 0, 'mapped in a worker');
});
