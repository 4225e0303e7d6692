import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Retries `check` (which throws, e.g. an assertion) until it passes or the
 * deadline is reached; then rethrows its last error, so a timeout reads as
 * the assertion that never came true.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    await sleep(intervalMs);
  }
}
