// The master's malloc settings (masterMalloc.ts) and the workers' reset
// (lua/portico/worker_malloc.lua), with a real nginx started as the data plane
// starts it: the master's memory after reloads stays what it was after start
// (with glibc's defaults it doubles at the first reload: the replaced
// configuration stays resident), and a worker allocates with glibc's defaults;
// the master's pool blocks (native/pool_blocks.c, preloaded) cost their 16 KiB
// and no page more, and go back to the kernel when freed.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { masterEnvironment, POOL_BLOCKS_LIBRARY } from '../../../src/dataplane/nginx/process/masterMalloc.js';
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
/** nginx's pool blocks, posix_memalign(16, 16384); pool_blocks.c's region holds 256 Ki of them. */
const POOL_BLOCKS = 2_000;
const REGION_BYTES = 256 * 1024 * 16_384;

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
end

ffi.cdef([[ int posix_memalign(void **out, size_t alignment, size_t size); ]])
local function resident_kib()
  local statm = io.open("/proc/self/statm"):read("*a")
  return tonumber(statm:match("^%d+ (%d+)")) * 4
end
-- The size of the mapping that holds address, from /proc/self/maps.
local function mapping_bytes(address)
  for line in io.lines("/proc/self/maps") do
    local from, to = line:match("^(%x+)-(%x+)")
    from, to = tonumber(from, 16), tonumber(to, 16)
    if address >= from and address < to then return to - from end
  end
  return 0
end
-- KiB of resident memory per pool block held (each written whole), KiB left
-- once they are freed, and the size of the mapping that held the first.
function pool_blocks()
  local out, blocks, before = ffi.new("void *[1]"), {}, resident_kib()
  for i = 1, ${POOL_BLOCKS} do
    assert(ffi.C.posix_memalign(out, 16, 16384) == 0)
    blocks[i] = out[0]
    ffi.fill(blocks[i], 16384, 1)
  end
  local held = (resident_kib() - before) / ${POOL_BLOCKS}
  local mapping = mapping_bytes(tonumber(ffi.cast("uintptr_t", blocks[1])))
  for i = 1, ${POOL_BLOCKS} do ffi.C.free(blocks[i]) end
  return string.format("%.2f %d %d", held, resident_kib() - before, mapping)
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
    '    ngx.shared.probe:set("master blocks", pool_blocks())',
    '    portico_worker_malloc = require("portico.worker_malloc") }',
    '  init_worker_by_lua_block { portico_worker_malloc.init_worker() }',
    '  access_log off;',
    `  server { listen 127.0.0.1:${port};`,
    '    location / { content_by_lua_block { ngx.say(ngx.shared.probe:get("master"), " ", mapped_allocations()) } }',
    '    location = /blocks { content_by_lua_block { ngx.say(ngx.shared.probe:get("master blocks"), " ", pool_blocks()) } }',
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

test(
  "the master's pool blocks are slots of one region, 16 KiB each, given back when freed; a worker's are glibc's",
  { skip: missingLuaNginx },
  async () => {
    const answer = await eventually(async () => (await httpGet({ port, path: '/blocks' })).body);
    const [heldKiB, leftKiB, mapping, , , workerMapping] = answer.trim().split(' ').map(Number);
    // glibc maps each with its header: 20 KiB. A reused slot is resident only once written again.
    assert.ok((heldKiB ?? 0) >= 15 && (heldKiB ?? Infinity) <= 16.5, `${heldKiB} KiB resident per block in the master`);
    assert.ok((leftKiB ?? Infinity) <= (POOL_BLOCKS * 16) / 10, `${leftKiB} KiB still resident once ${POOL_BLOCKS} blocks were freed`);
    assert.equal(mapping, REGION_BYTES, "the master's blocks are in pool_blocks.c's region");
    assert.notEqual(workerMapping, REGION_BYTES, "a worker's blocks are glibc's");
  },
);

test('the master preloads the pool-block allocator when it is installed, before any preload of the environment', () => {
  assert.equal(masterEnvironment({}, POOL_BLOCKS_LIBRARY).LD_PRELOAD, POOL_BLOCKS_LIBRARY, 'scripts/setup.sh installs it');
  assert.equal(masterEnvironment({ LD_PRELOAD: '/x.so' }).LD_PRELOAD, `${POOL_BLOCKS_LIBRARY}:/x.so`);
  assert.equal(masterEnvironment({ LD_PRELOAD: '/x.so' }, '/nonexistent.so').LD_PRELOAD, '/x.so');
  assert.equal(masterEnvironment({}, '/nonexistent.so').LD_PRELOAD, undefined);
  assert.equal(masterEnvironment({ PATH: '/bin' }).MALLOC_MMAP_THRESHOLD_, '4096');
});
