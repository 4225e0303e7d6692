import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `--sync-rate-limit`: at most `ratePerSecond` full syncs per second (a token
 * bucket of one token, as ingress-nginx's flowcontrol limiter). The first sync
 * after a quiet period goes at once; only a busy stream is slowed down.
 */
export class SyncRateLimiter {
  private nextAllowedAt = 0;

  constructor(private readonly ratePerSecond: number) {}

  /** Milliseconds until the next sync may start (0 = now). */
  delay(now = Date.now()): number {
    return Math.max(0, this.nextAllowedAt - now);
  }

  /** Waits for the token, then takes it. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const wait = this.delay();
    if (wait > 0) await sleep(wait, undefined, { signal });
    const interval = this.ratePerSecond > 0 ? 1000 / this.ratePerSecond : 0;
    this.nextAllowedAt = Date.now() + interval;
  }
}
