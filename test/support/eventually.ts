import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Stops retrying before the deadline once this holds (nothing can change any more, e.g. the process exited). */
  hopeless?: () => boolean;
}

/**
 * Retries `check` (which throws, e.g. an assertion) until it passes or the
 * deadline is reached; then rethrows its last error, so a timeout reads as
 * the assertion that never came true.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 50, hopeless }: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline || hopeless?.()) throw error;
    }
    await sleep(intervalMs);
  }
}
