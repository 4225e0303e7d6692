// The controller's health endpoint (`--healthz-port`, `--health-check-path`):
// 200 only while the caches are synced and nginx answers on its status port,
// as ingress-nginx's checker does, so a kubelet restarts a wedged pod. The
// same port serves Prometheus metrics at /metrics, as ingress-nginx's does.
//
// The endpoint runs in a worker thread (healthWorker.ts) and answers from the
// last check, which this thread makes every second (and at once when asked):
// a sync of 10,000 Ingresses holds this thread for seconds, and /healthz took
// up to 5.9 s to answer then, past the 1 s timeout of ingress-nginx's chart.
import { Worker } from 'node:worker_threads';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/logger.js';
import { HEALTH_WORKER_SOURCE, writeCheck, type HealthWorkerData, type ToMain, type ToWorker } from './healthWorker.js';

const METRICS_PATH = '/metrics';
const CHECK_INTERVAL_MS = 1000;
/**
 * A passed check older than this no longer counts: this thread is wedged. A
 * sync at 10,000 Ingresses holds it for seconds (bench/render.ts), far less.
 */
const STALE_AFTER_MS = 60_000;

export interface HealthServerOptions {
  host: string;
  port: number;
  path: string;
  check: () => Promise<boolean>;
  logger: Logger;
  metrics?: Registry;
}

export interface HealthServer {
  /** Checks now (after what the check reads changed), rather than at the next second. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const state = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const epochMs = Date.now();
  const workerData: HealthWorkerData = {
    state: state.buffer,
    epochMs,
    host: options.host,
    port: options.port,
    path: options.path,
    metricsPath: METRICS_PATH,
    metrics: options.metrics !== undefined,
    staleAfterMs: STALE_AFTER_MS,
  };
  const worker = new Worker(HEALTH_WORKER_SOURCE, { eval: true, workerData });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.once('error', reject);
      worker.on('message', (message: ToMain) => {
        if (message.kind === 'listening') resolve();
        else if (message.kind === 'failed') reject(new Error(`health endpoint on port ${options.port}: ${message.message}`));
        else serveMetrics(worker, message.id, options.metrics);
      });
    });
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  worker.on('error', (error) => options.logger.error({ err: error.message }, 'the health endpoint thread failed'));
  // It never keeps the process alive: the shutdown closes it, and a crash must still exit.
  worker.unref();

  let checking: Promise<void> | undefined;
  const refresh = (): Promise<void> => {
    checking ??= options
      .check()
      .catch(() => false)
      .then((healthy) => writeCheck(state, epochMs, healthy, Date.now()))
      .finally(() => (checking = undefined));
    return checking;
  };
  const timer = setInterval(() => void refresh(), CHECK_INTERVAL_MS);
  timer.unref();
  await refresh();
  options.logger.info({ host: options.host || '*', port: options.port, path: options.path }, 'health endpoint listening');
  return {
    refresh,
    close: async () => {
      clearInterval(timer);
      await worker.terminate();
    },
  };
}

function serveMetrics(worker: Worker, id: number, registry: Registry | undefined): void {
  const answer = (status: number, contentType: string, body: string): void =>
    worker.postMessage({ kind: 'metrics', id, status, contentType, body } satisfies ToWorker);
  if (registry === undefined) return answer(404, 'text/plain', '');
  registry.metrics().then(
    (text) => answer(200, registry.contentType, text),
    (error: unknown) => answer(500, 'text/plain', `metrics failed: ${String(error)}`),
  );
}
