// The health endpoint's own thread (healthServer.ts). A sync of thousands of
// Ingresses holds the main thread for seconds (model and render are CPU work),
// and a kubelet probing with ingress-nginx's chart's 1 s timeout would then
// restart a healthy pod: this thread answers /healthz at once from the last
// check the main thread wrote into shared memory, and passes /metrics (which
// needs the main thread's registry) on to it.
//
// The thread runs healthWorkerMain's source text (`eval`): Node 20's workers
// cannot load TypeScript through tsx, and this way dist/ and the tests run the
// same code. So the function is self-contained: no imports, no closure.

/**
 * The shared Int32 (one, so a read never sees half a write): 0 when the last
 * check failed or none was made yet; n > 0 when it passed n - 1 seconds after
 * `epochMs` (an Int32 of seconds lasts 68 years).
 */
export interface HealthWorkerData {
  state: SharedArrayBuffer;
  epochMs: number;
  host: string;
  port: number;
  path: string;
  metricsPath: string;
  /** Whether /metrics is served (a registry was given). */
  metrics: boolean;
  /** A passed check older than this no longer counts: the main thread is wedged (ms). */
  staleAfterMs: number;
}

export type ToMain = { kind: 'listening' } | { kind: 'failed'; message: string } | { kind: 'metrics'; id: number };
export type ToWorker = { kind: 'metrics'; id: number; status: number; contentType: string; body: string };

/** The main thread's side of the shared Int32. */
export function writeCheck(state: Int32Array, epochMs: number, healthy: boolean, nowMs: number): void {
  Atomics.store(state, 0, healthy ? Math.floor((nowMs - epochMs) / 1000) + 1 : 0);
}

function healthWorkerMain(): void {
  const { createServer } = process.getBuiltinModule('node:http');
  const threads = process.getBuiltinModule('node:worker_threads');
  const data = threads.workerData as HealthWorkerData;
  const parentPort = threads.parentPort;
  const state = new Int32Array(data.state);
  const port = parentPort;
  if (port === null) throw new Error('healthWorkerMain runs in a worker thread');

  const healthy = (): boolean => {
    const stored = Atomics.load(state, 0);
    return stored > 0 && Date.now() - (data.epochMs + (stored - 1) * 1000) <= data.staleAfterMs;
  };
  let nextRequest = 0;
  const pendingMetrics = new Map<number, (answer: ToWorker) => void>();
  port.on('message', (message: ToWorker) => {
    pendingMetrics.get(message.id)?.(message);
    pendingMetrics.delete(message.id);
  });

  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path === data.metricsPath && data.metrics) {
      const id = nextRequest++;
      pendingMetrics.set(id, (answer) => response.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.body));
      port.postMessage({ kind: 'metrics', id } satisfies ToMain);
      return;
    }
    if (path !== data.path) {
      response.writeHead(404).end();
      return;
    }
    const ok = healthy();
    response.writeHead(ok ? 200 : 500, { 'content-type': 'text/plain' }).end(ok ? 'ok' : 'unhealthy');
  });
  server.once('error', (error) => port.postMessage({ kind: 'failed', message: error.message } satisfies ToMain));
  server.listen(data.port, data.host || undefined, () => port.postMessage({ kind: 'listening' } satisfies ToMain));
}

/**
 * What the worker evaluates. Under tsx (the tests), esbuild's keepNames wraps
 * the function's inner functions in calls to its `__name` helper, which lives
 * outside this text: an identity stand-in. tsc's output (dist/) has none.
 */
export const HEALTH_WORKER_SOURCE = `var __name = (target) => target;\n(${healthWorkerMain.toString()})();`;
