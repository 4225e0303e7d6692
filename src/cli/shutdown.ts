// What Portico does after SIGTERM, in ingress-nginx's order:
//  1. at once: /healthz fails (`started`), while nginx keeps serving and the
//     controller keeps syncing, for --shutdown-grace-period, so endpoint
//     controllers and load balancers take the pod out before it stops;
//  2. 'stop-work': no new work (syncing, watching, admission, status: the
//     Ingress status is cleared here when this is the last replica);
//  3. 'stop-data-plane': nginx quits gracefully (in-flight requests finish);
//  4. 'release': connections and files are closed;
//  5. the process exits --post-shutdown-grace-period after nginx stopped.
// Components add their steps to a phase; a failing step is logged and the
// sequence goes on, so nginx is stopped whatever failed before it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log/logger.js';

const SHUTDOWN_PHASES = ['stop-work', 'stop-data-plane', 'release'] as const;
export type ShutdownPhase = (typeof SHUTDOWN_PHASES)[number];

export interface ShutdownOptions {
  /** --shutdown-grace-period, in milliseconds. */
  gracePeriodMs: number;
  /** --post-shutdown-grace-period, in milliseconds. */
  postGracePeriodMs: number;
  logger: Logger;
}

interface ShutdownStep {
  name: string;
  run: () => Promise<unknown> | void;
}

export class Shutdown {
  private readonly steps = new Map<ShutdownPhase, ShutdownStep[]>(SHUTDOWN_PHASES.map((phase) => [phase, []]));
  private running: Promise<boolean> | undefined;

  constructor(private readonly options: ShutdownOptions) {}

  /** True from the moment the shutdown began (health checks fail from then on). */
  get started(): boolean {
    return this.running !== undefined;
  }

  /** Adds a step to a phase; phases run in SHUTDOWN_PHASES order, steps of a phase in the order added. */
  add(phase: ShutdownPhase, name: string, run: ShutdownStep['run']): void {
    this.steps.get(phase)!.push({ name, run });
  }

  /**
   * Runs the sequence (once; later calls get the same result). `graceful`
   * false (startup failed, nothing was served) skips both waits. Resolves to
   * false when a step failed.
   */
  run({ graceful = true }: { graceful?: boolean } = {}): Promise<boolean> {
    this.running ??= this.sequence(graceful);
    return this.running;
  }

  private async sequence(graceful: boolean): Promise<boolean> {
    const { logger, gracePeriodMs, postGracePeriodMs } = this.options;
    if (graceful && gracePeriodMs > 0) {
      logger.info({ gracePeriodMs }, 'shutting down: still serving during the shutdown grace period');
      await sleep(gracePeriodMs);
    }
    let ok = true;
    let dataPlaneStoppedAt = Date.now();
    for (const phase of SHUTDOWN_PHASES) {
      for (const step of this.steps.get(phase)!) {
        logger.info({ phase, step: step.name }, 'shutting down');
        try {
          await step.run();
        } catch (error) {
          ok = false;
          logger.error({ phase, step: step.name, err: error instanceof Error ? error.message : String(error) }, 'shutdown step failed');
        }
      }
      if (phase === 'stop-data-plane') dataPlaneStoppedAt = Date.now();
    }
    const remainingMs = dataPlaneStoppedAt + postGracePeriodMs - Date.now();
    if (graceful && remainingMs > 0) {
      logger.info({ postGracePeriodMs }, 'waiting out the post-shutdown grace period');
      await sleep(remainingMs);
    }
    return ok;
  }
}
