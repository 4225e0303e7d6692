export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000 };

/**
 * Delay before retry number `attempt` (1-based): exponential, capped, with
 * "equal jitter" (half fixed, half random) so that many controllers restarted
 * together do not retry in lock-step against a recovering API server.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30);
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** exponent);
  return ceiling / 2 + random() * (ceiling / 2);
}
