// Summaries of repeated measurements. Medians and nearest-rank percentiles:
// with a handful of runs, interpolation would invent values never measured.

/** The p-th percentile (0 < p ≤ 100) by the nearest-rank method. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}
