// The master's worker processes, read from /proc. A worker renames itself
// "nginx: worker process is shutting down" in the same step as it takes the
// master's quit signal and closes its idle connections (ngx_process_cycle.c),
// so its title tells whether it still keeps connections alive.
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 10;

async function title(pid: number): Promise<string> {
  // A child may exit between the reads: gone reads as no title.
  return readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
}

/** The master's workers that have not taken a quit signal. */
export async function servingWorkers(masterPid: number): Promise<number[]> {
  const children = await readFile(`/proc/${masterPid}/task/${masterPid}/children`, 'utf8').catch(() => '');
  const serving: number[] = [];
  for (const pid of children.trim().split(/\s+/).filter(Boolean).map(Number)) {
    const name = await title(pid);
    if (name.includes('worker process') && !name.includes('is shutting down')) serving.push(pid);
  }
  return serving;
}

/** Resolves once each of `pids` is shutting down or gone, or after `timeoutMs`; whether they all were. */
export async function untilWorkersRetired(pids: readonly number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let left = [...pids];
  for (;;) {
    const titles = await Promise.all(left.map(title));
    left = left.filter((_, i) => titles[i]?.includes('worker process') === true && titles[i]?.includes('is shutting down') !== true);
    if (left.length === 0) return true;
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
}
