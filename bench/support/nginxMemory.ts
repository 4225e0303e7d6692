// nginx's memory as issue 18's goals count it: PSS and RSS (from
// /proc/<pid>/smaps_rollup) summed over the master and its children (workers,
// cache processes), measured once no worker is retiring, or at any moment
// (nginxMemoryNow: during a reload, old and new workers together).
import { readFile } from 'node:fs/promises';
import { eventually } from '../../test/support/eventually.js';
import { nginxMasterPid, nginxWorkers } from '../../test/support/nginxWorkers.js';

export interface NginxMemory {
  readonly processes: number;
  readonly pssKiB: number;
  readonly rssKiB: number;
}

/** Sums Pss and Rss over the master and all its children (retiring workers too); undefined if one exited meanwhile. */
export async function nginxMemoryNow(prefix: string): Promise<NginxMemory | undefined> {
  const master = await nginxMasterPid(prefix);
  const children = (await readFile(`/proc/${master}/task/${master}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean);
  let pssKiB = 0;
  let rssKiB = 0;
  for (const pid of [String(master), ...children]) {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => undefined);
    if (rollup === undefined) return undefined;
    pssKiB += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
    rssKiB += Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
  }
  return { processes: 1 + children.length, pssKiB, rssKiB };
}

/** nginx's memory once settled: no worker retiring (a reload Portico made by itself would still be draining). */
export async function nginxMemory(prefix: string, timeoutMs: number): Promise<NginxMemory> {
  return eventually(
    async () => {
      const workers = await nginxWorkers(prefix);
      if (workers.length === 0 || workers.some((worker) => worker.retiring)) throw new Error('nginx has retiring workers');
      const memory = await nginxMemoryNow(prefix);
      if (memory === undefined) throw new Error('a process of nginx exited while it was measured');
      return memory;
    },
    { timeoutMs, intervalMs: 100 },
  );
}
