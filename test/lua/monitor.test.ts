// lua/portico/monitor.lua in the nginx Portico renders, sending its batches to
// the controller's listener: what real requests through nginx to a real
// backend turn into on /metrics, including the records a worker still holds
// when nginx shuts down.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { NginxDataPlane } from '../../src/dataplane/nginxDataPlane.js';
import { silentLogger } from '../../src/log/logger.js';
import { PrometheusMetrics } from '../../src/metrics/prometheusMetrics.js';
import type { Configuration } from '../../src/model/types.js';
import { startEchoServer, type RunningEchoServer } from '../../tools/echo/echoServer.js';
import { backend, configuration, ingressRef, location, server } from '../dataplane/nginx/render/fixtures.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { httpGet } from '../support/httpGet.js';
import { parsePrometheusText, samplesOf, valueOf, type Sample } from '../support/prometheusText.js';
import { missingLuaNginx } from './luaNginx.js';

const HOST = 'app.example.com';
const BACKEND = 'shop-web-80';
/** A Service without endpoints: its 503 comes from the no-endpoints server, which is no upstream. */
const EMPTY_BACKEND = 'shop-empty-80';
const API = { path: '/api', namespace: 'shop', ingress: 'web', service: 'web', canary: '', host: HOST };
const EMPTY = { ...API, path: '/empty', ingress: 'empty', service: 'empty' };

let echo: RunningEchoServer;
let dir: string;

before(async () => {
  echo = await startEchoServer({ service: 'web', instance: 'web-1', host: '127.0.0.1', port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'portico-monitor-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefixes below it
});

after(async () => {
  await echo?.close();
  await rm(dir, { recursive: true, force: true });
});

function servedConfiguration(): Configuration {
  return configuration({
    servers: [
      server('_', []),
      server(HOST, [
        location('/api', 'prefix', BACKEND, { ingress: ingressRef('shop', 'web') }),
        location('/empty', 'prefix', EMPTY_BACKEND, { ingress: ingressRef('shop', 'empty') }),
      ]),
    ],
    backends: [
      backend(BACKEND, [{ address: '127.0.0.1', port: echo.port }], { namespace: 'shop', name: 'web' }),
      backend(EMPTY_BACKEND, [], { namespace: 'shop', name: 'empty' }),
    ],
  });
}

async function startServing(name: string, maxBatchSize = 1000): Promise<{ metrics: PrometheusMetrics; dataPlane: NginxDataPlane; port: number }> {
  const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
  const metrics = await PrometheusMetrics.start({
    enabled: true, controllerClass: 'k8s.io/ingress-nginx', metricsPerHost: true, metricsPerUndefinedHost: false,
    reportStatusClasses: false, exclude: [], buckets: { time: [0.1, 10], length: [100, 1000], size: [1000] },
    maxBatchSize, statusPort: status, logger: silentLogger(), env: { POD_NAMESPACE: 'ingress', POD_NAME: 'portico-0' },
  });
  const dataPlane = new NginxDataPlane({
    prefix: join(dir, name), logger: silentLogger(), ports: { http, https, defaultServer, status },
    listenAddresses: ['127.0.0.1'], monitor: metrics.monitor,
    endpointGuard: { porticoPorts: [http, https, defaultServer, status], interfaceAddresses: [], refuseLoopbackEverywhere: false },
  });
  const config = servedConfiguration();
  const started = await (await dataPlane.apply(config)).done;
  if (started.outcome === 'superseded') throw new Error('the first configuration cannot be superseded');
  metrics.live(config);
  metrics.applied(config, started);
  return { metrics, dataPlane, port: http };
}

async function scrape(metrics: PrometheusMetrics): Promise<Sample[]> {
  return parsePrometheusText(await metrics.registry.metrics());
}

test('requests through nginx become ingress-nginx request metrics', { skip: missingLuaNginx, timeout: 60_000 }, async () => {
  const { metrics, dataPlane, port } = await startServing('traffic');
  try {
    for (let i = 0; i < 5; i++) assert.equal((await httpGet({ port, host: HOST, path: `/api/item/${i}` })).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await httpGet({ port, host: HOST, path: '/api', method: 'POST', body: 'x'.repeat(500) })).status, 200);
    // Not counted: the generated `/` without a backend, and a host no Ingress names.
    assert.equal((await httpGet({ port, host: HOST, path: '/elsewhere' })).status, 404);
    assert.equal((await httpGet({ port, host: 'unknown.example.com', path: '/api' })).status, 404);
    for (let i = 0; i < 3; i++) assert.equal((await httpGet({ port, host: HOST, path: '/empty' })).status, 503);

    const samples = await eventually(async () => {
      const scraped = await scrape(metrics);
      assert.equal(valueOf(scraped, 'nginx_ingress_controller_requests', { ...API, method: 'POST', status: '200' }), 2);
      assert.equal(valueOf(scraped, 'nginx_ingress_controller_requests', { ...API, method: 'GET', status: '200' }), 5);
      assert.equal(valueOf(scraped, 'nginx_ingress_controller_requests', { ...EMPTY, method: 'GET', status: '503' }), 3);
      return scraped;
    }, { timeoutMs: 10_000, intervalMs: 200 });

    const get = { ...API, method: 'GET', status: '200' };
    const post = { ...API, method: 'POST', status: '200' };
    assert.deepEqual(samplesOf(samples, 'nginx_ingress_controller_requests').length, 3, 'only the three served label sets');
    const labels = samplesOf(samples, 'nginx_ingress_controller_requests')[0]!.labels;
    assert.equal(labels.controller_namespace, 'ingress');
    assert.equal(labels.controller_pod, 'portico-0');
    assert.equal(labels.controller_class, 'k8s.io/ingress-nginx');
    for (const name of ['request_duration_seconds', 'response_duration_seconds', 'header_duration_seconds', 'connect_duration_seconds',
      'request_size', 'response_size', 'bytes_sent']) {
      assert.equal(valueOf(samples, `nginx_ingress_controller_${name}_count`, get), 5, name);
      assert.equal(valueOf(samples, `nginx_ingress_controller_${name}_bucket`, { ...get, le: '+Inf' }), 5, name);
    }
    // The POSTs carry a 500-byte body: request_size lands between the 100 and 1000 buckets.
    assert.equal(valueOf(samples, 'nginx_ingress_controller_request_size_bucket', { ...post, le: '100' }), 0);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_request_size_bucket', { ...post, le: '1000' }), 2);
    assert.ok(valueOf(samples, 'nginx_ingress_controller_request_size_sum', post) > 1000);
    // Loopback answers well within 10 s, even on a loaded machine; the request time is measured, not 0.
    assert.equal(valueOf(samples, 'nginx_ingress_controller_request_duration_seconds_bucket', { ...get, le: '10' }), 5);
    assert.ok(valueOf(samples, 'nginx_ingress_controller_request_duration_seconds_sum', get) > 0);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_ingress_upstream_latency_seconds_count',
      { namespace: 'shop', ingress: 'web', service: 'web', canary: '' }), 7);
    // The 503s without endpoints: timed as requests, but no upstream answered them.
    const empty = { ...EMPTY, method: 'GET', status: '503' };
    assert.equal(valueOf(samples, 'nginx_ingress_controller_request_duration_seconds_count', empty), 3);
    for (const name of ['response_duration_seconds', 'header_duration_seconds', 'connect_duration_seconds']) {
      assert.equal(samplesOf(samples, `nginx_ingress_controller_${name}_count`).filter(({ labels }) => labels.ingress === 'empty').length, 0, name);
    }
    assert.equal(samplesOf(samples, 'nginx_ingress_controller_ingress_upstream_latency_seconds_count')
      .filter(({ labels }) => labels.ingress === 'empty').length, 0);

    assert.equal(valueOf(samples, 'nginx_ingress_controller_success'), 1);
    // nginx's stub_status: at least the 9 requests above, and the connection of this scrape.
    assert.ok(valueOf(samples, 'nginx_ingress_controller_nginx_process_requests_total') >= 9);
    assert.ok(valueOf(samples, 'nginx_ingress_controller_nginx_process_connections', { state: 'active' }) >= 1);
    assert.ok(valueOf(samples, 'nginx_ingress_controller_nginx_process_connections_total', { state: 'accepted' }) >= 9);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_config_last_reload_successful'), 1);
    assert.ok(valueOf(samples, 'nginx_ingress_controller_config_hash') > 0);
  } finally {
    await dataPlane.stop();
    await metrics.close();
  }
});

test('records a worker holds when nginx shuts down are still sent', { skip: missingLuaNginx, timeout: 60_000 }, async () => {
  const { metrics, dataPlane, port } = await startServing('shutdown');
  try {
    for (let i = 0; i < 20; i++) assert.equal((await httpGet({ port, host: HOST, path: '/api' })).status, 200);
    await dataPlane.stop();
    await eventually(async () => {
      const samples = await scrape(metrics);
      assert.equal(valueOf(samples, 'nginx_ingress_controller_requests', { ...API, method: 'GET', status: '200' }), 20);
    }, { timeoutMs: 5000, intervalMs: 100 });
  } finally {
    await dataPlane.stop();
    await metrics.close();
  }
});

test('a worker sends a full batch at once rather than dropping what exceeds --monitor-max-batch-size', { skip: missingLuaNginx, timeout: 60_000 }, async () => {
  const { metrics, dataPlane, port } = await startServing('full-batches', 5);
  try {
    const started = Date.now();
    for (let i = 0; i < 60; i++) assert.equal((await httpGet({ port, host: HOST, path: '/api' })).status, 200);
    const elapsedMs = Date.now() - started;
    await eventually(async () => {
      const samples = await scrape(metrics);
      assert.equal(valueOf(samples, 'nginx_ingress_controller_requests', { ...API, method: 'GET', status: '200' }), 60);
    }, { timeoutMs: 5000, intervalMs: 100 });
    assert.ok(elapsedMs < 3000, `60 requests took ${elapsedMs} ms: more than 5 per worker-second is what this tests`);
  } finally {
    await dataPlane.stop();
    await metrics.close();
  }
});
