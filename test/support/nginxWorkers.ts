// The worker processes of a Portico's nginx, read from /proc: which ones serve
// and which ones a reload has retired. A retiring worker renames itself
// "nginx: worker process is shutting down" the moment it takes the master's
// SIGQUIT, so watching the titles times a reload's effect on the workers to
// the polling interval, without reading logs (whose times are whole seconds).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from './eventually.js';

export interface NginxWorker {
  readonly pid: number;
  /** Retired by a reload (or a graceful stop): serves what it holds, accepts nothing new. */
  readonly retiring: boolean;
}

/** The pid of the master running in `prefix`, from its pid file. */
export async function nginxMasterPid(prefix: string): Promise<number> {
  return Number((await readFile(join(prefix, 'logs', 'nginx.pid'), 'utf8')).trim());
}

/**
 * Runs `body` while the process `pid` is stopped (SIGSTOP), and resumes it
 * however `body` ends. A stopped nginx master leaves a reload waiting, while
 * its workers keep serving the running nginx.conf and taking live state.
 */
export async function whileStopped<T>(pid: number, body: () => Promise<T>): Promise<T> {
  process.kill(pid, 'SIGSTOP');
  try {
    return await body();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

/** The master's worker children now (its cache manager/loader, if any, left out). */
export async function nginxWorkers(prefix: string): Promise<NginxWorker[]> {
  const master = await nginxMasterPid(prefix);
  const children = (await readFile(`/proc/${master}/task/${master}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean);
  const workers: NginxWorker[] = [];
  for (const pid of children) {
    // A child may exit between the two reads.
    const title = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (title.includes('worker process')) workers.push({ pid: Number(pid), retiring: title.includes('is shutting down') });
  }
  return workers;
}

/** Whether the process still exists (a retired worker that has finished is gone: nginx reaps it). */
export async function isAlive(pid: number): Promise<boolean> {
  return readFile(`/proc/${pid}/stat`, 'utf8').then(
    // A zombie ('Z' after the command name) has exited already.
    (stat) => !/\) Z /.test(stat),
    () => false,
  );
}

/** The pids of the workers that take new connections: not retired by a reload. */
export async function servingWorkerPids(prefix: string): Promise<number[]> {
  return (await nginxWorkers(prefix)).filter((worker) => !worker.retiring).map((worker) => worker.pid);
}

/**
 * Waits until none of `pids` takes new connections: each has retired (or exited).
 * A reload is done for nginx's master (and for Portico) once it has started the
 * new workers and sent the old ones their quit signal; until an old worker has
 * taken that signal it still accepts connections and answers them with the old
 * configuration, which on a busy machine can take a while. A retiring worker
 * renames itself in the same step that closes its listening sockets, so from
 * then on every new connection reaches a new worker.
 */
export async function untilRetired(prefix: string, pids: readonly number[], timeoutMs = 20_000): Promise<void> {
  await eventually(
    async () => {
      const serving = await servingWorkerPids(prefix);
      assert.deepEqual(
        serving.filter((pid) => pids.includes(pid)),
        [],
        'the old workers have retired',
      );
    },
    { timeoutMs, intervalMs: 20 },
  );
}
