// The nginx master as a child of Portico. It runs in the foreground (`daemon
// off`), so the child IS the master, in a process group of its own that its
// workers share.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { masterEnvironment } from './masterMalloc.js';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export function describeExit(exit: ProcessExit): string {
  return exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** process.kill, except that a process (or group) already gone is no error: it may die at any time. */
function signalIfPresent(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export class MasterProcess {
  readonly startedAt = Date.now();
  private exitStatus: ProcessExit | undefined;

  private constructor(
    readonly pid: number,
    /** Resolves once the master has exited and been reaped. */
    readonly exited: Promise<ProcessExit>,
  ) {
    void exited.then((exit) => (this.exitStatus = exit));
  }

  /**
   * Starts `binary args` under `setpriv --pdeathsig SIGTERM` (setpriv execs
   * it, so the pid is nginx's). If Portico dies without stopping it, the
   * kernel sends the master SIGTERM, and nginx's fast shutdown ends the workers
   * too. SIGKILL would not: nginx workers outlive a killed master, keep
   * serving the old configuration and keep its ports bound.
   *
   * `detached` makes the master a process group leader; the workers inherit
   * the group, so killGroup() reaches them even once they are orphans.
   */
  static async spawn(binary: string, args: readonly string[]): Promise<MasterProcess> {
    // stdout and stderr are Portico's: where the renderer sends nginx's logs
    // to /dev/stdout or stderr, they reach the container log without passing
    // through (and waiting on) Portico's event loop.
    const child = spawn('setpriv', ['--pdeathsig', 'SIGTERM', '--', binary, ...args], {
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: masterEnvironment(),
    });
    const exited = once(child, 'exit').then((args): ProcessExit => {
      const [code, signal] = args as [ProcessExit['code'], ProcessExit['signal']];
      return { code, signal };
    });
    try {
      await once(child, 'spawn'); // rejects on 'error'
    } catch (error) {
      // `exited` rejects with the same 'error' (events.once): the throw below reports it, once.
      void exited.catch(() => undefined);
      throw new Error(`cannot start nginx (${binary}): ${(error as Error).message}`);
    }
    if (child.pid === undefined) throw new Error('nginx started without a pid');
    return new MasterProcess(child.pid, exited);
  }

  /** undefined while the master runs. */
  get exit(): ProcessExit | undefined {
    return this.exitStatus;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.exitStatus === undefined) signalIfPresent(this.pid, signal);
  }

  /**
   * SIGKILLs the master and every worker, orphaned or not: after the master
   * has exited, the kernel keeps its pid reserved as the group's id for as
   * long as a worker is left in the group.
   */
  killGroup(): void {
    signalIfPresent(-this.pid, 'SIGKILL');
  }

  /**
   * Graceful shutdown (SIGQUIT: finish in-flight requests, then exit; the
   * master exits after its last worker). After `graceMs` the whole group is
   * killed. Resolves once the master has exited and whatever was left of its
   * group has been sent SIGKILL.
   */
  async stop(graceMs: number): Promise<void> {
    if (this.exitStatus === undefined) {
      this.signal('SIGQUIT');
      const timer = setTimeout(() => this.killGroup(), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    // Workers outlive a master that was killed (by the timer, or before stop()).
    this.killGroup();
  }
}
