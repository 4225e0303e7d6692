// Portico's Prometheus registry, served at /metrics on the health port. It
// always has the process metrics (as ingress-nginx has Go's); with
// --enable-metrics also ingress-nginx's controller metrics, nginx's
// connection counts and the per-request metrics nginx sends in batches.
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { SyncObserver } from '../controller/syncLoop.js';
import type { ApplyResult } from '../dataplane/dataPlane.js';
import { STATUS_ADDRESS, type MonitorTarget } from '../dataplane/nginx/render/renderContext.js';
import type { Logger } from '../log/logger.js';
import type { Configuration } from '../model/types.js';
import { BatchListener } from './batchListener.js';
import { controllerLabels } from './controllerLabels.js';
import { ControllerMetrics } from './controllerMetrics.js';
import { registerNginxStatusMetrics } from './nginxStatusMetrics.js';
import { decodeBatch } from './requestBatch.js';
import { RequestMetrics, type RequestMetricsOptions } from './requestMetrics.js';

export interface PrometheusMetricsOptions extends Omit<RequestMetricsOptions, 'labels'> {
  /** --enable-metrics. */
  enabled: boolean;
  /** --controller-class: the `controller_class` label, as ingress-nginx. */
  controllerClass: string;
  /** --monitor-max-batch-size: records a worker sends per batch (per second) at most. */
  maxBatchSize: number;
  /** --status-port: nginx's stub_status for the connection metrics. */
  statusPort: number;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
}

/** The longest record a batch may average, in bytes (a long host and path are a few hundred). */
const RECORD_BYTES_LIMIT = 4096;

export class PrometheusMetrics implements SyncObserver {
  private constructor(
    readonly registry: Registry,
    /** Where nginx sends request records; undefined without --enable-metrics. */
    readonly monitor?: MonitorTarget,
    /** Also for leader election to report through (`leading()`). */
    readonly controller?: ControllerMetrics,
    private readonly requests?: RequestMetrics,
    private readonly listener?: BatchListener,
  ) {}

  static async start(options: PrometheusMetricsOptions): Promise<PrometheusMetrics> {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    if (!options.enabled) return new PrometheusMetrics(registry);
    const labels = controllerLabels(options.controllerClass, options.env);
    const controller = new ControllerMetrics(labels, registry);
    registerNginxStatusMetrics(registry, labels, `http://${STATUS_ADDRESS}:${options.statusPort}/nginx_status`);
    const requests = new RequestMetrics({ ...options, labels }, registry);
    const logger = options.logger.child({ component: 'metrics' });
    const listener = await BatchListener.start({
      maxBatchBytes: options.maxBatchSize * RECORD_BYTES_LIMIT,
      logger,
      onBatch: (payload) => {
        const batch = decodeBatch(payload, String(listener.token));
        if (!batch.ok) {
          logger.warn({ error: batch.error }, 'request metrics batch refused');
          return;
        }
        const { skipped } = requests.record(batch.records);
        if (skipped + batch.malformed > 0) logger.debug({ skipped, malformed: batch.malformed }, 'request records not counted');
      },
    });
    const monitor = { port: listener.port, token: listener.token, maxBatchSize: options.maxBatchSize };
    return new PrometheusMetrics(registry, monitor, controller, requests, listener);
  }

  /** Requests are counted for what nginx serves, which includes hosts routed from live state before their reload. */
  live(configuration: Configuration): void {
    this.requests?.serve(configuration);
  }

  applied(configuration: Configuration, result: ApplyResult): void {
    if (result.outcome === 'rejected') this.controller?.reloadFailed();
    else if (result.outcome === 'reloaded') this.controller?.reloaded(configuration);
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }
}
