import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { RequestRecord } from '../../src/metrics/requestBatch.js';
import { RequestMetrics, UNDEFINED_HOSTS_LIMIT, type RequestMetricsOptions } from '../../src/metrics/requestMetrics.js';
import type { Configuration } from '../../src/model/types.js';
import { backend, configuration, ingressRef, location, server } from '../dataplane/nginx/render/fixtures.js';
import { parsePrometheusText, samplesOf, valueOf, type Sample } from '../support/prometheusText.js';

const LABELS = { controller_namespace: 'ingress', controller_class: 'k8s.io/ingress-nginx', controller_pod: 'portico-0' };

function served(...ingresses: Array<{ host: string; namespace: string; name: string; path: string; service: string }>): Configuration {
  const backends = ingresses.map(({ namespace, service }) => backend(`${namespace}/${service}:80`, [], { namespace, name: service }));
  const canary = backend('shop/web-canary:80', [], { namespace: 'shop', name: 'web-canary' });
  return configuration({
    servers: [
      server('_', []),
      ...ingresses.map(({ host, namespace, name, path, service }) =>
        server(host, [location(path, 'prefix', `${namespace}/${service}:80`, { ingress: ingressRef(namespace, name) })]),
      ),
    ],
    backends: [...backends, canary],
  });
}

const SHOP = { host: 'shop.example.com', namespace: 'shop', name: 'web', path: '/api', service: 'web' };
const BLOG = { host: 'blog.example.com', namespace: 'blog', name: 'blog', path: '/', service: 'blog' };

function record(overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    host: SHOP.host,
    namespace: 'shop',
    ingress: 'web',
    service: 'web',
    canary: '',
    path: '/api',
    method: 'GET',
    status: '200',
    requestLength: 80,
    requestTime: 0.02,
    bytesSent: 300,
    upstreamConnectTime: 0.001,
    upstreamHeaderTime: 0.015,
    upstreamResponseTime: 0.018,
    ...overrides,
  };
}

function metrics(options: Partial<RequestMetricsOptions> = {}): { requests: RequestMetrics; scrape: () => Promise<Sample[]> } {
  const registry = new Registry();
  const requests = new RequestMetrics(
    {
      labels: LABELS,
      metricsPerHost: true,
      metricsPerUndefinedHost: false,
      reportStatusClasses: false,
      exclude: [],
      buckets: { time: [0.01, 0.1, 1], length: [100, 1000], size: [1000, 10000] },
      ...options,
    },
    registry,
  );
  requests.serve(served(SHOP, BLOG));
  return { requests, scrape: async () => parsePrometheusText(await registry.metrics()) };
}

const SHOP_GET = {
  host: SHOP.host,
  namespace: 'shop',
  ingress: 'web',
  service: 'web',
  canary: '',
  path: '/api',
  method: 'GET',
  status: '200',
};

describe('RequestMetrics', () => {
  it('counts requests and fills cumulative histogram buckets per label set, with the controller labels', async () => {
    const { requests, scrape } = metrics();
    const outcome = requests.record([
      record({ requestTime: 0.005 }),
      record({ requestTime: 0.05 }),
      record({ requestTime: 5 }),
      record({ status: '404' }),
    ]);
    assert.deepEqual(outcome, { counted: 4, skipped: 0 });
    const samples = await scrape();
    assert.equal(valueOf(samples, 'nginx_ingress_controller_requests', { ...SHOP_GET, ...LABELS }), 3);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_requests', { ...SHOP_GET, status: '404' }), 1);
    const bucket = (le: string): number =>
      valueOf(samples, 'nginx_ingress_controller_request_duration_seconds_bucket', { ...SHOP_GET, le });
    assert.deepEqual(['0.01', '0.1', '1', '+Inf'].map(bucket), [1, 2, 2, 3]);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_request_duration_seconds_sum', SHOP_GET), 5.055);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_bytes_sent_bucket', { ...SHOP_GET, le: '1000' }), 3);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_response_size_bucket', { ...SHOP_GET, le: '100' }), 0);
    assert.equal(
      valueOf(samples, 'nginx_ingress_controller_ingress_upstream_latency_seconds_count', {
        namespace: 'shop',
        ingress: 'web',
        service: 'web',
        canary: '',
      }),
      4,
    );
  });

  it('does not observe the upstream histograms of a request that never reached an upstream', async () => {
    const { requests, scrape } = metrics();
    requests.record([
      record({ status: '503', upstreamConnectTime: undefined, upstreamHeaderTime: undefined, upstreamResponseTime: undefined }),
    ]);
    const samples = await scrape();
    const labels = { ...SHOP_GET, status: '503' };
    assert.equal(valueOf(samples, 'nginx_ingress_controller_request_duration_seconds_count', labels), 1);
    assert.equal(samplesOf(samples, 'nginx_ingress_controller_response_duration_seconds_count', labels).length, 0);
    assert.equal(samplesOf(samples, 'nginx_ingress_controller_connect_duration_seconds_count', labels).length, 0);
  });

  it('never creates a series for a location, host, canary or status the configuration does not serve', async () => {
    const { requests, scrape } = metrics();
    const hostile = [
      record({ namespace: 'other' }),
      record({ ingress: 'x' }),
      record({ service: 'db' }),
      record({ path: '/admin' }),
      record({ host: 'evil.example.com' }),
      record({ host: BLOG.host, namespace: 'x', ingress: 'y' }),
      record({ canary: 'shop-unknown-80' }),
      record({ status: '2000' }),
      record({ status: '' }),
      record({ status: '999' }),
      ...Array.from({ length: 1000 }, (_, i) => record({ path: `/api/${i}` })),
    ];
    assert.deepEqual(requests.record(hostile), { counted: 0, skipped: hostile.length });
    assert.deepEqual(samplesOf(await scrape(), 'nginx_ingress_controller_requests'), []);
  });

  it('labels methods nginx accepts but HTTP does not define as OTHER', async () => {
    const { requests, scrape } = metrics();
    requests.record(Array.from({ length: 50 }, (_, i) => record({ method: `X${i}` })).concat(record({ method: 'PATCH' })));
    const samples = await scrape();
    assert.equal(valueOf(samples, 'nginx_ingress_controller_requests', { ...SHOP_GET, method: 'OTHER' }), 50);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_requests', { ...SHOP_GET, method: 'PATCH' }), 1);
  });

  it("accepts a canary backend the configuration has, labelled with ingress-nginx's spelling of its name", async () => {
    const { requests, scrape } = metrics();
    requests.record([record({ canary: 'shop/web-canary:80' })]);
    assert.equal(valueOf(await scrape(), 'nginx_ingress_controller_requests', { ...SHOP_GET, canary: 'shop-web-canary-80' }), 1);
  });

  it('--report-status-classes labels 2xx, 4xx...', async () => {
    const { requests, scrape } = metrics({ reportStatusClasses: true });
    requests.record([record({ status: '200' }), record({ status: '204' }), record({ status: '404' })]);
    const samples = await scrape();
    assert.equal(valueOf(samples, 'nginx_ingress_controller_requests', { ...SHOP_GET, status: '2xx' }), 2);
    assert.equal(valueOf(samples, 'nginx_ingress_controller_requests', { ...SHOP_GET, status: '4xx' }), 1);
  });

  it('--metrics-per-host=false drops the host label and counts any host', async () => {
    const { requests, scrape } = metrics({ metricsPerHost: false });
    requests.record([record(), record({ host: 'anything.example.com' })]);
    const [sample, ...others] = samplesOf(await scrape(), 'nginx_ingress_controller_requests');
    assert.deepEqual(others, []);
    assert.equal(sample?.value, 2);
    assert.equal('host' in (sample?.labels ?? {}), false);
  });

  it(`--metrics-per-undefined-host labels other hosts, ${UNDEFINED_HOSTS_LIMIT} of them at most`, async () => {
    const { requests, scrape } = metrics({ metricsPerUndefinedHost: true });
    const hosts = Array.from({ length: UNDEFINED_HOSTS_LIMIT + 10 }, (_, i) => record({ host: `h${i}.example.com` }));
    assert.deepEqual(requests.record([...hosts, record()]), { counted: UNDEFINED_HOSTS_LIMIT + 1, skipped: 10 });
    assert.equal(samplesOf(await scrape(), 'nginx_ingress_controller_requests').length, UNDEFINED_HOSTS_LIMIT + 1);
  });

  it('--exclude-socket-metrics drops metrics by name, with or without the prefix', async () => {
    const { requests, scrape } = metrics({
      exclude: ['bytes_sent', 'nginx_ingress_controller_ingress_upstream_latency_seconds', 'requests'],
    });
    requests.record([record()]);
    const names = new Set((await scrape()).map((sample) => sample.name));
    for (const name of ['bytes_sent_count', 'ingress_upstream_latency_seconds_count', 'requests']) {
      assert.equal(names.has(`nginx_ingress_controller_${name}`), false, name);
    }
    assert.ok(names.has('nginx_ingress_controller_request_duration_seconds_count'));
  });

  it('removes the series of an Ingress that is gone, and still counts the previous workers of one that stays', async () => {
    const { requests, scrape } = metrics();
    requests.record([record(), record({ host: BLOG.host, namespace: 'blog', ingress: 'blog', service: 'blog', path: '/' })]);
    requests.serve(served({ ...SHOP, path: '/v2' }));
    const samples = await scrape();
    assert.equal(samplesOf(samples, 'nginx_ingress_controller_requests', { namespace: 'blog' }).length, 0);
    assert.equal(samplesOf(samples, 'nginx_ingress_controller_ingress_upstream_latency_seconds_count', { namespace: 'blog' }).length, 0);
    // An old worker's record for /api (the previous configuration) still counts; blog's does not come back.
    const outcome = requests.record([
      record(),
      record({ host: BLOG.host, namespace: 'blog', ingress: 'blog', service: 'blog', path: '/' }),
    ]);
    assert.deepEqual(outcome, { counted: 1, skipped: 1 });
    assert.equal(valueOf(await scrape(), 'nginx_ingress_controller_requests', SHOP_GET), 2);
  });

  it('refuses bucket flags that are not strictly increasing', () => {
    assert.throws(() => metrics({ buckets: { time: [1, 0.5], length: [1], size: [1] } }), /--time-buckets/);
    assert.throws(() => metrics({ buckets: { time: [1], length: [1, 1], size: [1] } }), /--length-buckets/);
  });
});
