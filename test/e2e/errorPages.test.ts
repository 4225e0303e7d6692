// custom-http-errors, disable-proxy-intercept-errors and default-backend
// through the real API server, Portico, nginx and echo backends, asserting
// what ingress-nginx's e2e tests do (annotations/customhttperrors.go,
// disableproxyintercepterrors.go, default_backend.go): an intercepted code is
// answered by the default backend, which receives the X-* headers; other codes
// pass; a Service without endpoints is answered by its Ingress's
// default-backend with X-Code 503; a missing default-backend Service is a
// Warning Event, and ingress-nginx's answers without it (404 for error pages,
// 503 without endpoints).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EchoResponse } from '../../tools/echo/echoServer.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpGetOptions, type HttpResult } from '../support/httpGet.js';
import {
  applyIngress,
  createService,
  ingress,
  paths,
  setEndpoints,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';

let cluster: E2eCluster;

before(async () => {
  cluster = await startE2eCluster('error-pages');
  for (const service of ['app', 'errors']) await createService(cluster, service, await startBackends(cluster, service));
  // A Service whose EndpointSlice lists no endpoint.
  await createService(cluster, 'empty', []);
});
after(() => cluster?.close());

const hostOf = (name: string): string => `${name}.error-pages.test`;

/** An Ingress named `name` for its own host, `/` to `service`, with these nginx.ingress.kubernetes.io/ annotations. */
function applyAnnotated(name: string, service: string, annotations: Record<string, string>, portico = cluster): Promise<void> {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
  return applyIngress(
    portico,
    ingress(portico, name, { rules: [{ host: hostOf(name), http: { paths: paths(['/', 'Prefix', service]) } }] }, prefixed),
  );
}

type RequestOptions = Omit<HttpGetOptions, 'port' | 'host'>;

/** Waits until a request to the host of `name` is answered as `check` wants (a bounded loop), and returns the answer. */
function until(name: string, options: RequestOptions, check: (result: HttpResult) => void, portico = cluster): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await httpGet({ port: portico.portico.ports.http, host: hostOf(name), ...options });
      check(result);
      return result;
    },
    { timeoutMs: 20_000 },
  );
}

/** The answer came from the echo Service `service` with `status`. */
const fromService = (service: string, status: number) => (result: HttpResult) => {
  assert.equal(result.status, status, result.body.slice(0, 200));
  assert.equal(echoed(result).service, service, result.body.slice(0, 200));
};

const fullEcho = (result: HttpResult): EchoResponse => echoed(result) as unknown as EchoResponse;

describe('custom-http-errors with default-backend', () => {
  const name = 'intercepted';
  before(() => applyAnnotated(name, 'app', { 'custom-http-errors': '404,500', 'default-backend': 'errors' }));

  test("a code in the list is answered by the default-backend, which gets ingress-nginx's X-* headers", async () => {
    const requestId = `error-pages-${Date.now()}`;
    const headers = { 'x-request-id': requestId, accept: 'application/json' };
    const echo = fullEcho(await until(name, { path: '/status/500?q=1', headers }, fromService('errors', 200)));
    assert.equal(echo.path, '/');
    assert.equal(echo.headers['x-code'], '500');
    assert.equal(echo.headers['x-format'], 'application/json');
    assert.equal(echo.headers['x-original-uri'], '/status/500?q=1');
    assert.equal(echo.headers['x-namespace'], cluster.namespace);
    assert.equal(echo.headers['x-ingress-name'], name);
    assert.equal(echo.headers['x-service-name'], 'app');
    assert.equal(echo.headers['x-service-port'], '80');
    assert.equal(echo.headers['x-request-id'], requestId);
    assert.equal(echo.host, hostOf(name));
    const notFound = fullEcho(await until(name, { path: '/status/404' }, fromService('errors', 200)));
    assert.equal(notFound.headers['x-code'], '404');
  });

  test('a code not in the list, and a success, pass through from the Service, while a code in it does not', async () => {
    await until(name, { path: '/status/500' }, fromService('errors', 200));
    await until(name, { path: '/status/503' }, fromService('app', 503));
    await until(name, { path: '/status/401' }, fromService('app', 401));
    await until(name, { path: '/anything' }, fromService('app', 200));
  });
});

test("disable-proxy-intercept-errors passes the upstream's answer; set to false, the default-backend answers", async () => {
  const name = 'not-intercepted';
  const annotations = { 'custom-http-errors': '404', 'default-backend': 'errors' };
  await applyAnnotated(name, 'app', { ...annotations, 'disable-proxy-intercept-errors': 'true' });
  const passed = await until(name, { path: '/status/404' }, fromService('app', 404));
  assert.equal(fullEcho(passed).path, '/status/404');
  await applyAnnotated(name, 'app', { ...annotations, 'disable-proxy-intercept-errors': 'false' });
  const intercepted = fullEcho(await until(name, { path: '/status/404' }, fromService('errors', 200)));
  assert.equal(intercepted.headers['x-code'], '404');
});

test("a Service without endpoints is answered by its Ingress's default-backend, with X-Code 503; with endpoints, by itself again", async () => {
  const name = 'no-endpoints';
  await createService(cluster, 'scaled', []);
  await applyAnnotated(name, 'scaled', { 'default-backend': 'errors' });
  const requestId = `no-endpoints-${Date.now()}`;
  const echo = fullEcho(await until(name, { path: '/alma/armud', headers: { 'x-request-id': requestId } }, fromService('errors', 200)));
  assert.equal(echo.path, '/alma/armud');
  assert.equal(echo.headers['x-code'], '503');
  assert.equal(echo.headers['x-ingress-name'], name);
  assert.equal(echo.headers['x-service-name'], 'scaled');
  assert.equal(echo.headers['x-namespace'], cluster.namespace);
  assert.equal(echo.headers['x-request-id'], requestId);
  const backends = await startBackends(cluster, 'scaled');
  await setEndpoints(
    cluster,
    'scaled',
    backends.map((backend) => backend.address),
  );
  const own = fullEcho(await until(name, { path: '/alma/armud' }, fromService('scaled', 200)));
  assert.equal(own.headers['x-code'], undefined);
});

test('a default-backend Service that does not exist: a Warning Event; error pages get 404, no endpoints 503', async () => {
  const name = 'missing-default';
  await applyAnnotated(name, 'app', { 'custom-http-errors': '500', 'default-backend': 'does-not-exist' });
  const other = 'missing-default-empty';
  await applyAnnotated(other, 'empty', { 'default-backend': 'does-not-exist' });
  await eventually(
    async () => {
      const list = await cluster.core.listNamespacedEvent({ namespace: cluster.namespace, fieldSelector: `involvedObject.name=${name}` });
      const found = list.items.filter((event) => event.type === 'Warning' && event.reason === 'DefaultBackendUnusable');
      assert.ok(found.length > 0, 'a DefaultBackendUnusable Warning Event');
      assert.match(found[0]?.message ?? '', /does-not-exist not found/);
    },
    { timeoutMs: 20_000 },
  );
  // Without --default-backend-service, ingress-nginx's own default backend answers error pages with 404.
  await until(name, { path: '/status/500' }, (result) => assert.equal(result.status, 404, result.body.slice(0, 200)));
  await until(name, { path: '/ok' }, fromService('app', 200));
  await until(other, { path: '/' }, (result) => assert.equal(result.status, 503, result.body.slice(0, 200)));
});

describe("--default-backend-service and the ConfigMap's custom-http-errors", () => {
  const SETTINGS_NAME = 'error-page-settings';
  let configured: E2eCluster;

  before(async () => {
    // A second Portico in the same namespace (with a class of its own), with the errors Service as its default backend.
    configured = await startE2eCluster(
      'error-pages-configmap',
      [`--configmap=${cluster.namespace}/${SETTINGS_NAME}`, `--default-backend-service=${cluster.namespace}/errors`],
      { namespace: cluster.namespace },
    );
  });
  after(() => configured?.close());

  test('the ConfigMap codes apply where the annotation is unset; the annotation codes go to --default-backend-service', async () => {
    await applyAnnotated('configmap-codes', 'app', {}, configured);
    await applyAnnotated('annotation-codes', 'app', { 'custom-http-errors': '500' }, configured);
    // Before the ConfigMap, 418 passes: the interception below can only come from it.
    await until('configmap-codes', { path: '/status/418' }, fromService('app', 418), configured);
    const annotated = fullEcho(await until('annotation-codes', { path: '/status/500' }, fromService('errors', 200), configured));
    assert.equal(annotated.headers['x-code'], '500');
    assert.equal(annotated.headers['x-ingress-name'], 'annotation-codes');

    await cluster.core.createNamespacedConfigMap({
      namespace: cluster.namespace,
      body: { metadata: { name: SETTINGS_NAME }, data: { 'custom-http-errors': '418' } },
    });
    const global = fullEcho(await until('configmap-codes', { path: '/status/418' }, fromService('errors', 200), configured));
    assert.equal(global.headers['x-code'], '418');
    assert.equal(global.headers['x-service-name'], 'app');
    // The annotation's list replaces the ConfigMap's.
    await until('annotation-codes', { path: '/status/418' }, fromService('app', 418), configured);
  });
});
