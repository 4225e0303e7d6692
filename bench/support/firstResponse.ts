// The time from creating an Ingress (the API call has returned) to the first
// 200 its host gets from the echo backend through Portico's nginx.
import { ingress, paths, type E2eCluster } from '../../test/support/e2eCluster.js';
import { echoed } from '../../test/support/httpGet.js';
import { pollHost } from './pollHost.js';

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
  const answer = await pollHost(cluster, host, {
    rejects: (result) => (result.status === 200 ? undefined : `HTTP ${result.status}`),
    deadline: created + options.deadlineMs,
    intervalMs: options.pollIntervalMs,
    awaited: 'a 200',
  });
  const elapsed = performance.now() - created;
  if (echoed(answer).service !== options.service)
    throw new Error(`${host} answered from ${echoed(answer).service}, not ${options.service}`);
  return elapsed;
}
