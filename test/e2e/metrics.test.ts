// --enable-metrics end to end: real requests through Portico's nginx to an
// echo backend in the test network, then /metrics on the health port has
// ingress-nginx's request counters and histograms with the Ingress's labels,
// and the reload metrics move when an Ingress change reloads nginx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { httpGet } from '../support/httpGet.js';
import { nginxMasterPid, whileStopped } from '../support/nginxWorkers.js';
import { CONTROLLER_NAMESPACE } from '../support/ingressStatus.js';
import { parsePrometheusText, samplesOf, valueOf, type Sample } from '../support/prometheusText.js';
import {
  applyIngress,
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';

const HOST = 'shop.metrics.test';
/** Its own Lease, so that no other test's Portico leads it. */
const ELECTION_ID = `metrics-${process.pid}-${Date.now()}`;
let cluster: E2eCluster;

async function scrape(): Promise<Sample[]> {
  const response = await httpGet({ port: cluster.portico.ports.healthz, path: '/metrics' });
  assert.equal(response.status, 200, response.body);
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(response.body);
}

/** The value, or 0 when the series does not exist yet. */
function valueOrZero(samples: readonly Sample[], name: string, labels: Record<string, string>): number {
  return samplesOf(samples, name, labels).length === 0 ? 0 : valueOf(samples, name, labels);
}

before(async () => {
  // The controller's own namespace, where its Role lets it hold the Lease.
  cluster = await startE2eCluster('metrics', ['--enable-metrics', `--election-id=${ELECTION_ID}`], {
    env: { POD_NAMESPACE: CONTROLLER_NAMESPACE },
  });
  await createService(cluster, 'web', await startBackends(cluster, 'web'));
  // The reload too: the host answers from its pending route before it, and a worker of before may 404 it after it.
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'shop', { rules: [{ host: HOST, http: { paths: paths(['/api', 'Prefix', 'web']) } }] }),
  );
  await eventually(async () => assert.equal((await httpGet({ port: cluster.portico.ports.http, host: HOST, path: '/api' })).status, 200), {
    timeoutMs: 20_000,
  });
});
after(() => cluster?.close());

test('requests through nginx are counted by Ingress, Service, path, method, status and host', { timeout: 60_000 }, async () => {
  const labels = { namespace: cluster.namespace, ingress: 'shop', service: 'web', path: '/api', host: HOST, canary: '', status: '200' };
  const get = { ...labels, method: 'GET' };
  const post = { ...labels, method: 'POST' };
  // Earlier requests (the readiness probe above) may still be in flight to the controller: wait until the count settles.
  const before = await eventually(
    async () => {
      const first = valueOrZero(await scrape(), 'nginx_ingress_controller_requests', get);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(valueOrZero(await scrape(), 'nginx_ingress_controller_requests', get), first);
      return first;
    },
    { timeoutMs: 15_000 },
  );

  for (let i = 0; i < 25; i++)
    assert.equal((await httpGet({ port: cluster.portico.ports.http, host: HOST, path: `/api/items/${i}` })).status, 200);
  for (let i = 0; i < 5; i++) {
    assert.equal(
      (await httpGet({ port: cluster.portico.ports.http, host: HOST, path: '/api/orders', method: 'POST', body: '{"n":1}' })).status,
      200,
    );
  }
  // Outside every Ingress: not counted.
  assert.equal((await httpGet({ port: cluster.portico.ports.http, host: 'nobody.metrics.test', path: '/api' })).status, 404);

  const samples = await eventually(
    async () => {
      const scraped = await scrape();
      assert.equal(valueOf(scraped, 'nginx_ingress_controller_requests', get), before + 25);
      assert.equal(valueOf(scraped, 'nginx_ingress_controller_requests', post), 5);
      return scraped;
    },
    { timeoutMs: 10_000, intervalMs: 250 },
  );

  const series = samplesOf(samples, 'nginx_ingress_controller_requests');
  assert.deepEqual(new Set(series.map((sample) => sample.labels.host)), new Set([HOST]));
  assert.match(series[0]?.labels.controller_class ?? '', /^portico\.test\//);
  assert.equal(series[0]?.labels.controller_namespace, CONTROLLER_NAMESPACE);
  for (const name of [
    'request_duration_seconds',
    'response_duration_seconds',
    'header_duration_seconds',
    'connect_duration_seconds',
    'request_size',
    'response_size',
    'bytes_sent',
  ]) {
    assert.equal(valueOf(samples, `nginx_ingress_controller_${name}_count`, post), 5, name);
    assert.equal(valueOf(samples, `nginx_ingress_controller_${name}_bucket`, { ...post, le: '+Inf' }), 5, name);
  }
  // ingress-nginx's default --time-buckets: an echo in the test network answers within a second.
  assert.equal(valueOf(samples, 'nginx_ingress_controller_request_duration_seconds_bucket', { ...post, le: '1' }), 5);
  assert.ok(valueOf(samples, 'nginx_ingress_controller_request_size_sum', post) > 5 * 7, 'the request bodies count');
  assert.ok(valueOf(samples, 'nginx_ingress_controller_nginx_process_requests_total') >= 31, "nginx's stub_status");
});

test('a reload moves the reload metrics and the configuration hash', { timeout: 60_000 }, async () => {
  const before = await scrape();
  const reloads = valueOf(before, 'nginx_ingress_controller_success');
  const hash = valueOf(before, 'nginx_ingress_controller_config_hash');
  assert.ok(reloads >= 1);
  assert.equal(valueOf(before, 'nginx_ingress_controller_config_last_reload_successful'), 1);
  const reloadedAt = valueOf(before, 'nginx_ingress_controller_config_last_reload_successful_timestamp_seconds');
  assert.ok(Math.abs(reloadedAt - Date.now() / 1000) < 600, `${reloadedAt}`);

  // A new host is new structure: nginx reloads.
  await applyIngress(
    cluster,
    ingress(cluster, 'blog', { rules: [{ host: 'blog.metrics.test', http: { paths: paths(['/', 'Prefix', 'web']) } }] }),
  );
  const after = await eventually(
    async () => {
      const scraped = await scrape();
      assert.equal(valueOf(scraped, 'nginx_ingress_controller_success'), reloads + 1);
      return scraped;
    },
    { timeoutMs: 15_000, intervalMs: 250 },
  );
  assert.notEqual(valueOf(after, 'nginx_ingress_controller_config_hash'), hash);
  assert.ok(valueOf(after, 'nginx_ingress_controller_config_hash') > 0);
  assert.equal(valueOf(after, 'nginx_ingress_controller_config_last_reload_successful'), 1);
  assert.equal(
    samplesOf(after, 'nginx_ingress_controller_errors').every((sample) => sample.value === 0),
    true,
  );
});

test('requests to a new host are counted while its reload still waits', { timeout: 60_000 }, async () => {
  const host = 'early.metrics.test';
  const get = { namespace: cluster.namespace, ingress: 'early', service: 'web', path: '/', host, canary: '', status: '200', method: 'GET' };
  const before = await scrape();
  // A held master: the reload for the new host waits, while its workers route it from live state.
  await whileStopped(await nginxMasterPid(cluster.portico.prefix), async () => {
    await applyIngress(cluster, ingress(cluster, 'early', { rules: [{ host, http: { paths: paths(['/', 'Prefix', 'web']) } }] }));
    await eventually(async () => assert.equal((await httpGet({ port: cluster.portico.ports.http, host, path: '/' })).status, 200), {
      timeoutMs: 15_000,
    });
    for (let i = 0; i < 5; i++) assert.equal((await httpGet({ port: cluster.portico.ports.http, host, path: `/items/${i}` })).status, 200);
    await eventually(
      async () => {
        const scraped = await scrape();
        assert.ok(valueOrZero(scraped, 'nginx_ingress_controller_requests', get) >= 6, 'the first 200 and the five after it');
        assert.equal(
          valueOf(scraped, 'nginx_ingress_controller_success'),
          valueOf(before, 'nginx_ingress_controller_success'),
          'no reload yet',
        );
      },
      { timeoutMs: 10_000, intervalMs: 250 },
    );
  });
});

test('the leader election gauge says this replica leads', { timeout: 60_000 }, async () => {
  await eventually(
    async () => {
      assert.equal(valueOf(await scrape(), 'nginx_ingress_controller_leader_election_status', { name: ELECTION_ID }), 1);
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
});
