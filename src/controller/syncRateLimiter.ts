import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `--sync-rate-limit`: at most `ratePerSecond` syncs that change nginx per
 * second (a token bucket of one token, as ingress-nginx's flowcontrol
 * limiter). The first change after a quiet period goes at once; only a busy
 * stream is slowed down, and a sync that changed nothing costs no token.
 */
export class SyncRateLimiter {
  private nextAllowedAt = 0;

  constructor(private readonly ratePerSecond: number) {}

  /** Milliseconds until the next sync may start (0 = now). */
  delay(now = Date.now()): number {
    return Math.max(0, this.nextAllowedAt - now);
  }

  /** Waits until a token is there (without taking it). */
  async ready(signal?: AbortSignal): Promise<void> {
    const wait = this.delay();
    if (wait > 0) await sleep(wait, undefined, { signal });
  }

  /** Takes the token: the next sync waits 1/rate seconds from now. */
  take(): void {
    const interval = this.ratePerSecond > 0 ? 1000 / this.ratePerSecond : 0;
    this.nextAllowedAt = Date.now() + interval;
  }
}
