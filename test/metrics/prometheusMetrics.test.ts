import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { silentLogger } from '../../src/log/logger.js';
import { ControllerMetrics, configurationHash } from '../../src/metrics/controllerMetrics.js';
import { controllerLabels } from '../../src/metrics/controllerLabels.js';
import { parseStubStatus } from '../../src/metrics/nginxStatusMetrics.js';
import { PrometheusMetrics, type PrometheusMetricsOptions } from '../../src/metrics/prometheusMetrics.js';
import { Registry } from 'prom-client';
import type { MonitorTarget } from '../../src/dataplane/nginx/render/renderContext.js';
import { backend, configuration, ingressRef, location, server } from '../dataplane/nginx/render/fixtures.js';
import { eventually } from '../support/eventually.js';
import { parsePrometheusText, samplesOf, valueOf, type Sample } from '../support/prometheusText.js';

const OPTIONS: PrometheusMetricsOptions = {
  enabled: true,
  controllerClass: 'k8s.io/ingress-nginx',
  metricsPerHost: true,
  metricsPerUndefinedHost: false,
  reportStatusClasses: false,
  exclude: [],
  buckets: { time: [1], length: [1], size: [1] },
  maxBatchSize: 10,
  statusPort: 1,
  logger: silentLogger(),
  env: { POD_NAMESPACE: 'ingress', POD_NAME: 'portico-0' },
};

const SERVED = configuration({
  servers: [server('_', []), server('a.example.com', [location('/', 'prefix', 'shop-web-80', { ingress: ingressRef('shop', 'web') })])],
  backends: [backend('shop-web-80', [], { namespace: 'shop', name: 'web' })],
});

const scrape = async (registry: Registry): Promise<Sample[]> => parsePrometheusText(await registry.metrics());

/** One batch over the listener's TCP port, as a worker sends it. */
function send(port: number, payload: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(payload));
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

describe('controller labels', () => {
  it('come from POD_NAMESPACE, POD_NAME and --controller-class, with fallbacks', () => {
    assert.deepEqual(controllerLabels('c', { POD_NAMESPACE: 'ns', POD_NAME: 'pod' }), {
      controller_namespace: 'ns',
      controller_class: 'c',
      controller_pod: 'pod',
    });
    const fallback = controllerLabels('c', {});
    assert.equal(fallback.controller_namespace, 'default');
    assert.ok(fallback.controller_pod.length > 0);
  });
});

describe('ControllerMetrics', () => {
  it('reports reloads, their last outcome, its time and the configuration hash', async () => {
    const registry = new Registry();
    const controller = new ControllerMetrics(controllerLabels('c', { POD_NAME: 'p' }), registry);
    let samples = await scrape(registry);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_config_last_reload_successful'), 0);
    assert.deepEqual(samplesOf(samples, 'nginx_ingress_controller_success'), []);

    controller.reloaded(SERVED, 1_700_000_000_500);
    samples = await scrape(registry);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_success', { controller_pod: 'p', controller_class: 'c' }), 1);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_config_last_reload_successful'), 1);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_config_last_reload_successful_timestamp_seconds'), 1_700_000_000);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_config_hash'), configurationHash(SERVED));

    controller.reloadFailed();
    samples = await scrape(registry);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_errors'), 1);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_config_last_reload_successful'), 0);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_config_hash'), 0);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_config_last_reload_successful_timestamp_seconds'), 1_700_000_000);

    controller.leading('ingress-controller-leader', true);
    assert.equal(
      valueOf(await scrape(registry), 'nginx_ingress_controller_leader_election_status', { name: 'ingress-controller-leader' }),
      1,
    );
  });

  it('hashes configurations to distinct exact integers', () => {
    const other = configuration({ ...SERVED, servers: SERVED.servers.slice(0, 1) });
    const hash = configurationHash(SERVED);
    assert.ok(Number.isSafeInteger(hash) && hash > 0);
    assert.equal(configurationHash(structuredClone(SERVED)), hash);
    assert.notEqual(configurationHash(other), hash);
  });
});

describe('PrometheusMetrics', () => {
  it('without --enable-metrics: process metrics only, and no listener for nginx', async () => {
    const metrics = await PrometheusMetrics.start({ ...OPTIONS, enabled: false });
    const samples = await scrape(metrics.registry);
    assert.equal(metrics.monitor, undefined);
    assert.ok(samples.some((sample) => sample.name === 'process_cpu_user_seconds_total'));
    assert.deepEqual(
      samples.filter((sample) => sample.name.startsWith('nginx_ingress_controller_')),
      [],
    );
    metrics.applied(SERVED, { outcome: 'reloaded' });
    await metrics.close();
  });

  const RECORD = ['a.example.com', 'shop', 'web', 'web', '', '/', 'GET', '200', '1', '0.1', '1', '', '', ''];

  /** Metrics serving SERVED (one reload), listening for batches, closed after `check`. */
  async function withListener(check: (metrics: PrometheusMetrics, monitor: MonitorTarget) => Promise<void>): Promise<void> {
    const metrics = await PrometheusMetrics.start(OPTIONS);
    try {
      assert.ok(metrics.monitor);
      metrics.live(SERVED);
      metrics.applied(SERVED, { outcome: 'reloaded' });
      await check(metrics, metrics.monitor);
    } finally {
      await metrics.close();
    }
  }

  const requestsEventually = (metrics: PrometheusMetrics, expected: number): Promise<void> =>
    eventually(
      async () => {
        assert.equal(
          valueOf(await scrape(metrics.registry), 'nginx_ingress_controller_requests', { host: 'a.example.com', status: '200' }),
          expected,
        );
      },
      { timeoutMs: 3000 },
    );

  it('counts reloads and failures from the sync loop, and records from batches carrying its token', () =>
    withListener(async (metrics, monitor) => {
      metrics.applied(SERVED, { outcome: 'unchanged' });
      metrics.applied(SERVED, { outcome: 'rejected', error: 'nginx -t failed' });
      await send(monitor.port, `${monitor.token}\n${JSON.stringify([...RECORD, ...RECORD])}`);
      await send(monitor.port, `${monitor.token + 1}\n${JSON.stringify(RECORD)}`);
      await send(monitor.port, 'garbage');
      await requestsEventually(metrics, 2);
      const samples = await scrape(metrics.registry);
      assert.equal(valueOf(samples, 'nginx_ingress_controller_success'), 1);
      assert.equal(valueOf(samples, 'nginx_ingress_controller_errors'), 1);
      assert.equal(valueOf(samples, 'nginx_ingress_controller_config_last_reload_successful'), 0);
    }));

  it('closes a connection at its first byte off the token, before buffering anything', () =>
    withListener(async (_metrics, monitor) => {
      const wrong = String(monitor.token).replace(/^./, (digit) => String((Number(digit) % 9) + 1));
      const closed = await new Promise<boolean>((resolve) => {
        const socket = connect(monitor.port, '127.0.0.1', () => socket.write(`${wrong}\n[`));
        const timer = setTimeout(() => {
          socket.destroy();
          resolve(false);
        }, 3000);
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
        socket.on('error', () => undefined); // a reset closes it too
      });
      assert.equal(closed, true, 'the listener kept a connection without the token open');
    }));

  it('drops a batch larger than --monitor-max-batch-size records can be, and keeps listening', () =>
    withListener(async (metrics, monitor) => {
      const oversized = JSON.stringify(Array.from({ length: 1000 }, () => RECORD).flat());
      assert.ok(oversized.length > OPTIONS.maxBatchSize * 4096);
      await send(monitor.port, `${monitor.token}\n${oversized}`).catch(() => undefined);
      await send(monitor.port, `${monitor.token}\n${JSON.stringify(RECORD)}`);
      await requestsEventually(metrics, 1);
    }));
});

describe('parseStubStatus', () => {
  it("reads nginx's stub_status page", () => {
    const page = 'Active connections: 2 \nserver accepts handled requests\n 10 9 20 \nReading: 0 Writing: 1 Waiting: 1 \n';
    assert.deepEqual(parseStubStatus(page), { active: 2, accepted: 10, handled: 9, requests: 20, reading: 0, writing: 1, waiting: 1 });
  });

  it('is undefined for anything else', () => {
    for (const page of ['', '<html>404</html>', 'Active connections: x']) assert.equal(parseStubStatus(page), undefined);
  });
});
