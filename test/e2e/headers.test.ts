// The header annotations through the real API server, Portico, nginx and echo
// backends, asserting what ingress-nginx's e2e tests do (customheaders.go,
// upstreamvhost.go, connection.go, xforwardedprefix.go, proxy.go) and what a
// client and a backend actually see.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { applyIngress, createService, ingress, paths, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpGetOptions, type HttpResult } from '../support/httpGet.js';

const SETTINGS = 'portico-settings';
const ALLOWED = ['My-Custom-Header', 'My-Custom-Header-Dollar'];

let cluster: E2eCluster;
let core: CoreV1Api;
let namespace: string;

before(async () => {
  // The global ConfigMap exists before Portico starts, in the namespace the test's Portico watches.
  const plane = await sharedControlPlane();
  const admin = new KubeConfig();
  admin.loadFromFile(plane.adminKubeconfig);
  core = admin.makeApiClient(CoreV1Api);
  namespace = await createTestNamespace(plane.adminKubeconfig, 'headers');
  await core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: SETTINGS }, data: { 'global-allowed-response-headers': ALLOWED.join(',') } },
  });
  cluster = await startE2eCluster('headers', [`--configmap=${namespace}/${SETTINGS}`], { namespace });
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
});
after(() => cluster?.close());

const hostOf = (name: string): string => `${name}.headers.test`;

async function applyAnnotated(name: string, annotations: Record<string, string>): Promise<void> {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
  await applyIngress(
    cluster,
    ingress(cluster, name, { rules: [{ host: hostOf(name), http: { paths: paths(['/', 'Prefix', 'echo']) } }] }, prefixed),
  );
}

type RequestOptions = Omit<HttpGetOptions, 'port' | 'host'>;

/** Waits until a request to the host named `name` meets `check`, and returns that answer. */
function until(name: string, check: (result: HttpResult) => void, options: RequestOptions = {}): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await httpGet({ port: cluster.portico.ports.http, host: hostOf(name), ...options });
      check(result);
      return result;
    },
    { timeoutMs: 15_000 },
  );
}

const status = (expected: number) => (result: HttpResult) => assert.equal(result.status, expected, result.body.slice(0, 200));

async function untilWarning(name: string, reason: string, fragment: string): Promise<void> {
  await eventually(
    async () => {
      const events = await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
      const messages = events.items
        .filter((event) => event.type === 'Warning' && event.reason === reason)
        .map((event) => event.message ?? '');
      assert.ok(
        messages.some((message) => message.includes(fragment)),
        JSON.stringify(events.items.map((event) => [event.reason, event.message])),
      );
    },
    { timeoutMs: 15_000 },
  );
}

async function putConfigMap(name: string, data: Record<string, string>): Promise<void> {
  const body = { metadata: { name }, data };
  await core.replaceNamespacedConfigMap({ name, namespace, body }).catch(() => core.createNamespacedConfigMap({ namespace, body }));
}

describe('custom-headers', () => {
  test('the ConfigMap\'s headers reach the client, "$" as written; an edit of the ConfigMap alone re-syncs', async () => {
    await putConfigMap('custom-headers', { 'My-Custom-Header': '42', 'My-Custom-Header-Dollar': '$remote_addr' });
    await applyAnnotated('custom', { 'custom-headers': `${namespace}/custom-headers` });
    const answer = await until('custom', (result) => assert.equal(result.headers['my-custom-header'], '42'));
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['my-custom-header-dollar'], '$remote_addr');
    // Also on a status the backend chose: more_set_headers applies to every response. Checked on the waited-for
    // answer: an old worker's 404 (the host unknown to it) has no such header.
    await until(
      'custom',
      (result) => {
        status(404)(result);
        assert.equal(result.headers['my-custom-header'], '42');
      },
      { path: '/status/404' },
    );
    await putConfigMap('custom-headers', { 'My-Custom-Header': '43' });
    const edited = await until('custom', (result) => assert.equal(result.headers['my-custom-header'], '43'));
    assert.equal(edited.headers['my-custom-header-dollar'], undefined);
  });

  test('a missing ConfigMap answers 503 with a Warning, as ingress-nginx denies the location', async () => {
    await applyAnnotated('custom-missing', { 'custom-headers': 'no-such-headers' });
    await until('custom-missing', status(503));
    await untilWarning('custom-missing', 'InvalidCustomHeaders', 'not found');
  });

  test('a header global-allowed-response-headers does not list answers 503 with a Warning', async () => {
    await putConfigMap('custom-not-allowed', { 'My-Custom-Header': '1', 'X-Not-Allowed': '2' });
    await applyAnnotated('custom-refused', { 'custom-headers': 'custom-not-allowed' });
    const refused = await until('custom-refused', status(503));
    assert.equal(refused.headers['my-custom-header'], undefined);
    await untilWarning('custom-refused', 'InvalidCustomHeaders', 'X-Not-Allowed is not allowed');
  });
});

describe('request headers sent upstream', () => {
  test('upstream-vhost is the Host the backend receives', async () => {
    await applyAnnotated('vhost', { 'upstream-vhost': 'upstreamvhost.bar.com' });
    await until('vhost', (result) => assert.equal(echoed(result).host, 'upstreamvhost.bar.com'));
    await applyAnnotated('vhost-variables', { 'upstream-vhost': '$service_name.$namespace.svc' });
    await until('vhost-variables', (result) => assert.equal(echoed(result).host, `echo.${namespace}.svc`));
  });

  test('connection-proxy-header is the Connection the backend receives', async () => {
    await applyAnnotated('connection', { 'connection-proxy-header': 'keep-alive' });
    await until('connection', (result) => assert.equal(echoed(result).headers['connection'], 'keep-alive'));
  });

  test('x-forwarded-prefix with rewrite-target reaches the backend; without the annotation there is none', async () => {
    await applyAnnotated('prefix', { 'x-forwarded-prefix': '/test/value', 'rewrite-target': '/foo' });
    const result = await until('prefix', (answer) => assert.equal(echoed(answer).headers['x-forwarded-prefix'], '/test/value'));
    assert.equal(echoed(result).path, '/foo');
    await applyAnnotated('no-prefix', { 'rewrite-target': '/foo' });
    const plain = await until('no-prefix', (answer) => assert.equal(echoed(answer).path, '/foo'));
    assert.equal(echoed(plain).headers['x-forwarded-prefix'], undefined);
  });
});

describe('rewrites of the response', () => {
  const respondWith = (headers: Record<string, string>): RequestOptions => ({
    path: `/response-headers?${new URLSearchParams(headers).toString()}`,
  });

  test("proxy-cookie-domain and proxy-cookie-path rewrite the backend's Set-Cookie", async () => {
    await applyAnnotated('cookies', { 'proxy-cookie-domain': 'localhost example.org', 'proxy-cookie-path': '/one/ /' });
    const cookie = 'session=1; Domain=localhost; Path=/one/';
    const result = await until(
      'cookies',
      (answer) => assert.deepEqual(answer.headers['set-cookie'], ['session=1; Domain=example.org; Path=/']),
      respondWith({ 'Set-Cookie': cookie }),
    );
    assert.equal(result.status, 200);
  });

  test("proxy-redirect-from and proxy-redirect-to rewrite the backend's Location", async () => {
    await applyAnnotated('redirect', { 'proxy-redirect-from': 'http://hello.com/', 'proxy-redirect-to': 'https://goodbye.com/' });
    await until(
      'redirect',
      (answer) => assert.equal(answer.headers.location, 'https://goodbye.com/path?a=1'),
      respondWith({ Location: 'http://hello.com/path?a=1' }),
    );
    // proxy-redirect-from off: the Location as the backend sent it.
    await applyAnnotated('redirect-off', { 'proxy-redirect-from': 'off', 'proxy-redirect-to': 'https://goodbye.com/' });
    await until(
      'redirect-off',
      (answer) => assert.equal(answer.headers.location, 'http://hello.com/path'),
      respondWith({ Location: 'http://hello.com/path' }),
    );
  });
});
