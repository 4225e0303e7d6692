// Proxy tuning and retries through the real API server, Portico, nginx and
// echo backends: proxy-next-upstream* decide whether a request that an
// endpoint refuses is retried on another, and a location with its buffers,
// request buffering and HTTP version tuned still proxies, as ingress-nginx's
// e2e proxy.go and clientbodybuffersize.go expect.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import {
  applyIngress,
  applyIngressAndReload,
  createService,
  ECHO_PORT,
  ingress,
  paths,
  setEndpoints,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { createClusterIpService } from '../support/clusterIpService.js';
import type { EchoBackend } from '../support/testNetwork.js';

const PREFIX = 'nginx.ingress.kubernetes.io';
/** Requests per check: with round robin over two endpoints, half of them go first to the one that refuses. */
const REQUESTS = 40;

let cluster: E2eCluster;
let answering: EchoBackend;
/** An address in the test network where nothing listens on ECHO_PORT: connections to it are refused. */
let refusing: string;

before(async () => {
  cluster = await startE2eCluster('proxytuning');
  [answering] = (await startBackends(cluster, 'answering', 1)) as [EchoBackend];
  refusing = await cluster.network.addAddress();
});
after(() => cluster?.close());

function prefixed(annotations: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value]));
}

/** An Ingress for `<name>.proxytuning.test` to a Service of its own, served once nginx has reloaded with it. */
async function serve(name: string, annotations: Record<string, string>, endpoints: readonly string[]): Promise<string> {
  const host = `${name}.proxytuning.test`;
  await createService(cluster, name, []);
  await setEndpoints(cluster, name, endpoints);
  await applyIngressAndReload(
    cluster,
    ingress(cluster, name, { rules: [{ host, http: { paths: paths(['/', 'Prefix', name]) } }] }, prefixed(annotations)),
  );
  return host;
}

async function statuses(host: string, count: number): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const { status } = await httpGet({ port: cluster.portico.ports.http, host });
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return counts;
}

test('an endpoint that refuses connections: every request is retried on the other (ConfigMap default "error timeout")', async () => {
  const host = await serve('retried', {}, [answering.address, refusing]);
  for (let i = 0; i < REQUESTS; i++) {
    const result = await httpGet({ port: cluster.portico.ports.http, host });
    assert.equal(result.status, 200, `request ${i}: ${result.body.slice(0, 200)}`);
    assert.equal(echoed(result).instance, 'answering-1');
  }
});

test('proxy-next-upstream: "off": the requests that go to the refusing endpoint fail', async () => {
  const host = await serve('noretry', { 'proxy-next-upstream': 'off' }, [answering.address, refusing]);
  const counts = await statuses(host, REQUESTS);
  assert.ok((counts.get(502) ?? 0) > 0, `statuses: ${JSON.stringify([...counts])}`);
  assert.ok((counts.get(200) ?? 0) > 0, `statuses: ${JSON.stringify([...counts])}`);
  assert.deepEqual([...counts.keys()].sort(), [200, 502]);
});

test('proxy-next-upstream-tries: "1" is one attempt, no retry', async () => {
  const host = await serve('onetry', { 'proxy-next-upstream-tries': '1' }, [answering.address, refusing]);
  const counts = await statuses(host, REQUESTS);
  assert.ok((counts.get(502) ?? 0) > 0, `statuses: ${JSON.stringify([...counts])}`);
  assert.ok((counts.get(200) ?? 0) > 0, `statuses: ${JSON.stringify([...counts])}`);
});

test('proxy-next-upstream with http_502 and tries 2: a 502 is retried once, on the other endpoint, then given', async () => {
  // Both endpoints answer /status/502 with 502; the access log's $upstream_addr and $upstream_status show the attempts.
  const second = (await startBackends(cluster, 'second', 1))[0] as EchoBackend;
  const host = await serve('retry502', { 'proxy-next-upstream': 'error timeout http_502', 'proxy-next-upstream-tries': '2' }, [
    answering.address,
    second.address,
  ]);
  const requestId = `retry502-${randomUUID()}`;
  const result = await httpGet({ port: cluster.portico.ports.http, host, path: '/status/502', headers: { 'x-request-id': requestId } });
  assert.equal(result.status, 502);
  const line = await eventually(async () => {
    const found = (await readFile(join(cluster.portico.prefix, 'logs', 'access.log'), 'utf8'))
      .split('\n')
      .find((entry) => entry.endsWith(requestId));
    assert.ok(found !== undefined, `no access log line for ${requestId}`);
    return found;
  });
  const endpoints = [answering.address, second.address].map((address) => `${address}:${ECHO_PORT}`);
  const tried = [endpoints.join(', '), [...endpoints].reverse().join(', ')];
  assert.ok(
    tried.some((addresses) => line.includes(` ${addresses} `)),
    `both endpoints in ${line}`,
  );
  assert.ok(line.endsWith(` 502, 502 ${requestId}`), `two 502s in ${line}`);
});

test('a tuned location still proxies: HTTP/1.0 to the backend, a streamed body, small buffers', async () => {
  const host = await serve(
    'tuned',
    {
      'proxy-http-version': '1.0',
      'proxy-buffer-size': '16k',
      'proxy-buffers-number': '8',
      'proxy-busy-buffers-size': '32k',
      'proxy-max-temp-file-size': '0',
      'proxy-request-buffering': 'off',
      'client-body-buffer-size': '1k',
    },
    [answering.address],
  );
  const body = 'x'.repeat(64 * 1024);
  const result = await httpGet({ port: cluster.portico.ports.http, host, method: 'POST', body, path: '/upload' });
  assert.equal(result.status, 200, result.body.slice(0, 200));
  const echo = JSON.parse(result.body) as { httpVersion: string; body?: string; method: string };
  assert.equal(echo.httpVersion, '1.0');
  assert.equal(echo.method, 'POST');
  assert.equal(echo.body?.length, body.length);
});

async function serveService(name: string, annotations: Record<string, string>): Promise<string> {
  const host = `${name}.proxytuning.test`;
  await applyIngressAndReload(
    cluster,
    ingress(cluster, name, { rules: [{ host, http: { paths: paths(['/', 'Prefix', name, 'http']) } }] }, prefixed(annotations)),
  );
  return host;
}

test('service-upstream: "true": requests go to the ClusterIP, not the endpoints', async () => {
  await createClusterIpService(cluster, 'viacluster', [answering.address]);
  const host = await serveService('viacluster', { 'service-upstream': 'true' });
  for (let i = 0; i < 10; i++) {
    const result = await httpGet({ port: cluster.portico.ports.http, host });
    assert.equal(result.status, 200, result.body.slice(0, 200));
    assert.equal(echoed(result).instance, 'viacluster-clusterip');
  }
  // The same Service without the annotation: its endpoint, by a push of the live state (nginx.conf does not change).
  await applyIngress(
    cluster,
    ingress(cluster, 'viacluster', { rules: [{ host, http: { paths: paths(['/', 'Prefix', 'viacluster', 'http']) } }] }),
  );
  await eventually(async () => assert.equal(echoed(await httpGet({ port: cluster.portico.ports.http, host })).instance, 'answering-1'));
});

test('service-upstream on a headless Service: its endpoints serve, and the Ingress gets a ServiceUpstream warning', async () => {
  await cluster.core.createNamespacedService({
    namespace: cluster.namespace,
    body: { metadata: { name: 'headless' }, spec: { clusterIP: 'None', ports: [{ name: 'http', port: 80, targetPort: ECHO_PORT }] } },
  });
  await setEndpoints(cluster, 'headless', [answering.address]);
  const host = await serveService('headless', { 'service-upstream': 'true' });
  assert.equal(echoed(await httpGet({ port: cluster.portico.ports.http, host })).instance, 'answering-1');
  await eventually(async () => {
    const events = await cluster.core.listNamespacedEvent({ namespace: cluster.namespace, fieldSelector: 'involvedObject.name=headless' });
    const warning = events.items.find((event) => event.type === 'Warning' && event.reason === 'ServiceUpstream');
    assert.match(warning?.message ?? '', /headless Service has no ClusterIP/);
  });
});
