// The controller's health endpoint (`--healthz-port`, `--health-check-path`):
// 200 only while the caches are synced and nginx answers on its status port,
// as ingress-nginx's checker does, so a kubelet restarts a wedged pod. The
// same port serves Prometheus metrics at /metrics, as ingress-nginx's does.
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/logger.js';

const METRICS_PATH = '/metrics';

export interface HealthServerOptions {
  host: string;
  port: number;
  path: string;
  check: () => Promise<boolean>;
  logger: Logger;
  metrics?: Registry;
}

export async function startHealthServer(options: HealthServerOptions): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path === METRICS_PATH && options.metrics) {
      serveMetrics(response, options.metrics);
      return;
    }
    if (path !== options.path) {
      response.writeHead(404).end();
      return;
    }
    options.check().then(
      (healthy) => response.writeHead(healthy ? 200 : 500, { 'content-type': 'text/plain' }).end(healthy ? 'ok' : 'unhealthy'),
      () => response.writeHead(500).end('unhealthy'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host || undefined, () => resolve());
  });
  options.logger.info({ host: options.host || '*', port: options.port, path: options.path }, 'health endpoint listening');
  return server;
}

function serveMetrics(response: ServerResponse, registry: Registry): void {
  registry.metrics().then(
    (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
    (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(error)}`),
  );
}
