// Reloading the master and learning whether the new configuration took.
//
// On SIGHUP the master logs "reconfiguring" and loads the configuration
// file. If that works it logs "start worker processes" (new workers) and
// retires the old ones; if not (a directive it refuses, a port already
// taken) it logs why and carries on with the old configuration, but logs
// nothing when it is done. To know when it is done, Portico then sends a
// SIGALRM: the master blocks its signals except while idle in sigsuspend(), so
// the signal is taken, and logged as "signal 14 (SIGALRM) received from
// <Portico's pid>", only once the reload attempt has finished. (A master
// that is not shutting down ignores SIGALRM; SIGCHLD would not do, as a
// worker exiting at the same time would merge with it.) Everything the master
// logged between the two lines is the reload's outcome.
import { constants } from 'node:os';
import type { ControlLog, ReadEnd } from './controlLog.js';
import { describeFailures, describeWarnings, isLogged, parseErrorLog } from './errorLogEntries.js';
import { describeExit, type MasterProcess } from './masterProcess.js';

export type ReloadResult =
  /** `warnings`: what the master warned about while loading it, empty when nothing. */
  | { readonly outcome: 'reloaded'; readonly warnings: string }
  /** The master kept (or, having exited, no longer runs) the previous configuration. */
  | { readonly outcome: 'failed'; readonly error: string }
  /** Unknown: the master may still be loading the new configuration. */
  | { readonly outcome: 'unconfirmed'; readonly error: string };

const DONE_MARKER = `signal ${constants.signals.SIGALRM} (SIGALRM) received from ${process.pid}`;

export async function reloadMaster(master: MasterProcess, controlLog: ControlLog, timeoutMs: number): Promise<ReloadResult> {
  const deadline = Date.now() + timeoutMs;
  const exited = (): boolean => master.exit !== undefined;
  const follower = await controlLog.follow();
  try {
    master.signal('SIGHUP');
    const started = await follower.readUntil((line) => isLogged(line, master.pid, 'reconfiguring'), deadline, exited);
    if (started.end !== 'found') return unfinished(started.end, master, timeoutMs);

    master.signal('SIGALRM');
    const attempt = await follower.readUntil((line) => isLogged(line, master.pid, DONE_MARKER), deadline, exited);
    if (attempt.end !== 'found') return unfinished(attempt.end, master, timeoutMs);

    const entries = parseErrorLog(attempt.lines);
    if (entries.some((entry) => entry.pid === master.pid && entry.message === 'start worker processes')) {
      return { outcome: 'reloaded', warnings: describeWarnings(entries, master.pid) };
    }
    const failures = describeFailures(entries, master.pid);
    return { outcome: 'failed', error: failures === '' ? 'nginx kept the previous configuration without logging why' : failures };
  } finally {
    await follower.close();
  }
}

function unfinished(end: Exclude<ReadEnd, 'found'>, master: MasterProcess, timeoutMs: number): ReloadResult {
  const exit = master.exit;
  if (end === 'interrupted' && exit !== undefined) return { outcome: 'failed', error: `nginx ${describeExit(exit)} during the reload` };
  return { outcome: 'unconfirmed', error: `nginx did not finish reloading within ${timeoutMs} ms` };
}
