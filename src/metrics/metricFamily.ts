// A metric family in prom-client's own object shape (`get()` returns name,
// help, type and samples), for values Portico keeps or reads itself: the
// registry formats and serves it like its own Counters and Histograms.
import type { Metric, Registry } from 'prom-client';

/** A sample as prom-client's Registry formats it. */
export interface FamilyValue {
  /** For a histogram's `_bucket`, `_sum` and `_count` lines. */
  readonly metricName?: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

export type FamilyType = 'counter' | 'gauge' | 'histogram';

/** `values` runs at every scrape. */
export function registerFamily(
  registry: Registry,
  name: string,
  help: string,
  type: FamilyType,
  values: () => FamilyValue[] | Promise<FamilyValue[]>,
): void {
  const family = {
    name,
    help,
    type,
    get: async () => ({ name, help, type, values: await values(), aggregator: 'sum' as const }),
    reset: () => {},
  };
  // prom-client types registerMetric for its own classes; its Registry reads only the fields above.
  registry.registerMetric(family as unknown as Metric);
}
