// Polls Portico's /healthz one probe at a time, as a kubelet would (but more
// often), for the longest answer while the soak runs; bounded by `maxMs`.
import { setTimeout as sleep } from 'node:timers/promises';
import { httpGet } from '../../test/support/httpGet.js';

const INTERVAL_MS = 200;
const PROBE_TIMEOUT_MS = 10_000;

export interface HealthProbeReport {
  readonly probes: number;
  /** Not 200, or no answer within PROBE_TIMEOUT_MS. */
  readonly failed: number;
  readonly maxMs: number;
}

export function startHealthProbe(port: number, maxMs: number): { stop(): Promise<HealthProbeReport> } {
  const report = { probes: 0, failed: 0, maxMs: 0 };
  let stopped = false;
  const until = performance.now() + maxMs;
  const loop = (async () => {
    while (!stopped && performance.now() < until) {
      const sent = performance.now();
      const result = await httpGet({ port, path: '/healthz', timeoutMs: PROBE_TIMEOUT_MS }).catch(() => undefined);
      report.probes++;
      if (result?.status !== 200) report.failed++;
      report.maxMs = Math.max(report.maxMs, performance.now() - sent);
      await sleep(INTERVAL_MS);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return report;
    },
  };
}
