import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A long-running test dependency (etcd, kube-apiserver) that cannot outlive this process. */
export interface GuardedProcess {
  readonly name: string;
  readonly pid: number;
  /** stdout and stderr, appended (a restarted process keeps its predecessor's log). */
  readonly logPath: string;
  readonly exited: Promise<ProcessExit>;
  hasExited(): boolean;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves once it has exited. */
  stop(graceMs: number): Promise<void>;
  /** SIGKILL; resolves once it has exited. */
  kill(): Promise<void>;
  /** The last lines of its log, for error messages. */
  logTail(lines?: number): string;
}

const running = new Set<ChildProcess>();

// Last resort when the test process ends without stop() (a failed test, a
// forgotten after hook). 'exit' handlers must be synchronous, so SIGKILL.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Spawns `binary` through `setpriv --pdeathsig SIGKILL`, so the kernel kills
 * it if this process dies without running any handler (SIGKILL, crash).
 * setpriv execs the binary, so the pid is the binary's own.
 *
 * The child is unref'd: a test file's process must be able to end while a
 * control plane still runs (the exit hook above then kills it).
 */
export async function spawnGuarded(
  name: string,
  binary: string,
  args: readonly string[],
  logPath: string,
  env: Readonly<Record<string, string>> = {},
): Promise<GuardedProcess> {
  const logFd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn('setpriv', ['--pdeathsig', 'SIGKILL', '--', binary, ...args], {
      stdio: ['ignore', logFd, logFd],
      env: { ...process.env, ...env },
    });
  } finally {
    closeSync(logFd); // the child has its own copy
  }
  running.add(child);
  child.unref();
  let exit: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      running.delete(child);
      resolve(exit);
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => {
      running.delete(child);
      reject(new Error(`cannot start ${name} (${binary}): ${error.message}`));
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name} started without a pid`);

  const logTail = (lines = 40): string => tailOfFile(logPath, lines);

  // Waiting for an unref'd child's exit would not keep the event loop alive.
  const stop = async (graceMs: number): Promise<void> => {
    if (exit !== undefined) return;
    child.ref();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  const kill = async (): Promise<void> => {
    if (exit !== undefined) return;
    child.ref();
    child.kill('SIGKILL');
    await exited;
  };

  return { name, pid, logPath, exited, hasExited: () => exit !== undefined, stop, kill, logTail };
}

function tailOfFile(path: string, lines: number): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch (error) {
    return `(no log: ${(error as Error).message})`;
  }
}
