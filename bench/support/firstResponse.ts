// The time from creating an Ingress (the API call has returned) to the first
// 200 its host gets from the echo backend through Portico's nginx.
import { setTimeout as sleep } from 'node:timers/promises';
import { ingress, paths, type E2eCluster } from '../../test/support/e2eCluster.js';
import { echoed, httpGet, type HttpResult } from '../../test/support/httpGet.js';

const REQUEST_TIMEOUT_MS = 1_000;

export interface FirstResponseOptions {
  /** The Service the Ingress routes `/` to, whose echo backend must answer. */
  service: string;
  pollIntervalMs: number;
  deadlineMs: number;
}

/** Creates an Ingress for `<name>.example` and polls that host until it answers 200 from the service's backend; returns milliseconds. */
export async function timeToFirstResponse(cluster: E2eCluster, name: string, options: FirstResponseOptions): Promise<number> {
  const host = `${name}.example`;
  await cluster.networking.createNamespacedIngress({
    namespace: cluster.namespace,
    body: ingress(cluster, name, { rules: [{ host, http: { paths: paths(['/', 'Prefix', options.service]) } }] }),
  });
  const created = performance.now();
  const deadline = created + options.deadlineMs;
  let last = 'no answer yet';
  while (performance.now() < deadline) {
    const result: HttpResult | undefined = await httpGet({ port: cluster.portico.ports.http, host, timeoutMs: REQUEST_TIMEOUT_MS }).catch(
      (error: unknown) => {
        last = (error as Error).message;
        return undefined;
      },
    );
    if (result?.status === 200) {
      const elapsed = performance.now() - created;
      if (echoed(result).service !== options.service) throw new Error(`${host} answered from ${echoed(result).service}, not ${options.service}`);
      return elapsed;
    }
    if (result) last = `HTTP ${result.status}`;
    await sleep(options.pollIntervalMs);
  }
  throw new Error(`${host} not served within ${options.deadlineMs} ms (last: ${last})\n${cluster.portico.logTail(30)}`);
}
