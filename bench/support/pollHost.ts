// Polls a host through Portico's nginx until an answer is the one wanted: the
// one loop behind the benchmarks' "time until traffic gets there" figures.
import { setTimeout as sleep } from 'node:timers/promises';
import type { E2eCluster } from '../../test/support/e2eCluster.js';
import { httpGet, type HttpResult } from '../../test/support/httpGet.js';

const REQUEST_TIMEOUT_MS = 1_000;

export interface PollHostOptions {
  /** Why this answer is not the one wanted yet, or undefined when it is. */
  rejects(result: HttpResult): string | undefined;
  /** A performance.now() time. */
  deadline: number;
  intervalMs: number;
  /** Names what was awaited in the error at the deadline. */
  awaited: string;
  /** Default `/`. */
  path?: string;
  /** Over HTTPS to nginx's TLS port, with the host as SNI name. */
  https?: boolean;
}

/** Resolves with the wanted answer; throws at the deadline with the last reason and Portico's log tail. */
export async function pollHost(cluster: E2eCluster, host: string, options: PollHostOptions): Promise<HttpResult> {
  let last = 'no answer yet';
  while (performance.now() < options.deadline) {
    const { ports } = cluster.portico;
    const request = { host, path: options.path, https: options.https, timeoutMs: REQUEST_TIMEOUT_MS };
    const result = await httpGet({ ...request, port: options.https ? ports.https : ports.http }).catch((error: unknown) => {
      last = (error as Error).message;
      return undefined;
    });
    if (result) {
      const reason = options.rejects(result);
      if (reason === undefined) return result;
      last = reason;
    }
    await sleep(options.intervalMs);
  }
  throw new Error(`${host}: ${options.awaited} not in time (last: ${last})\n${cluster.portico.logTail(30)}`);
}
