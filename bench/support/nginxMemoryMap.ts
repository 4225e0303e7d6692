// Where an nginx process's memory is, from /proc/<pid>/smaps: PSS and private
// (dirty or clean: pages no other process maps) per kind of mapping. The
// parsed configuration is malloc's: brk heap, or with masterMalloc.ts's mmap
// threshold anonymous mappings the kernel merges into regions of any size,
// inherited copy-on-write by the workers, so what a worker has *private* there
// is what it wrote after its fork (LuaJIT's heap, decoded documents) and its
// shared part is the master's configuration. nginx's shared memory zones
// (lua_shared_dicts, limit_req and upstream zones) are shared anonymous
// mappings, shown as /dev/zero.
import { readFile } from 'node:fs/promises';

export const MAPPING_KINDS = ['brk heap', 'anonymous', 'shared zones', 'libraries', 'other'] as const;
export type MappingKind = (typeof MAPPING_KINDS)[number];

export interface KindMemory {
  pssKiB: number;
  privateKiB: number;
  rssKiB: number;
  mappings: number;
}

export type ProcessMemoryMap = Record<MappingKind, KindMemory>;

function kindOf(name: string, shared: boolean): MappingKind {
  if (name === '[heap]') return 'brk heap';
  if (name.startsWith('/dev/zero') || name.startsWith('/SYSV') || (name === '' && shared)) return 'shared zones';
  if (name === '') return 'anonymous';
  if (/\.so(\.|$)/.test(name)) return 'libraries';
  return 'other';
}

function emptyMap(): ProcessMemoryMap {
  const map = {} as ProcessMemoryMap;
  for (const kind of MAPPING_KINDS) map[kind] = { pssKiB: 0, privateKiB: 0, rssKiB: 0, mappings: 0 };
  return map;
}

/** `/proc/<pid>/smaps` summed per kind of mapping; undefined if the process is gone. */
export async function processMemoryMap(pid: number): Promise<ProcessMemoryMap | undefined> {
  const text = await readFile(`/proc/${pid}/smaps`, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const map = emptyMap();
  let current: KindMemory | undefined;
  for (const line of text.split('\n')) {
    // A mapping's header: "start-end perms offset dev inode [name]".
    const header = /^[0-9a-f]+-[0-9a-f]+ (\S{4}) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header !== null) {
      current = map[kindOf(header[2]!, header[1]![3] === 's')];
      current.mappings++;
      continue;
    }
    const field = /^(Pss|Rss|Private_Clean|Private_Dirty):\s+(\d+) kB/.exec(line);
    if (field === null || current === undefined) continue;
    const kib = Number(field[2]);
    if (field[1] === 'Pss') current.pssKiB += kib;
    else if (field[1] === 'Rss') current.rssKiB += kib;
    else current.privateKiB += kib;
  }
  return map;
}

/** Each of the master's processes (itself first) with its title's role and its memory map. */
export async function nginxMemoryMaps(master: number): Promise<{ role: string; map: ProcessMemoryMap }[]> {
  const children = (await readFile(`/proc/${master}/task/${master}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean);
  const maps: { role: string; map: ProcessMemoryMap }[] = [];
  for (const pid of [master, ...children.map(Number)]) {
    const title = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const map = await processMemoryMap(pid);
    if (map === undefined) continue; // exited meanwhile
    const role = title.includes('is shutting down') ? 'retiring worker' : (/nginx: (\w+ \w+)/.exec(title)?.[1] ?? 'process');
    maps.push({ role: `${role} ${pid}`, map });
  }
  return maps;
}
