// The header keys of the global ConfigMap through the real API server, Portico,
// nginx and echo backends, as ingress-nginx's e2e tests expect them
// (settings/server_tokens.go, custom_header.go, tls.go's HSTS) and as a client
// and a backend see them. One Portico; each test writes the whole ConfigMap it needs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyIngress, createService, ingress, paths, startBackends, type E2eCluster } from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { SETTINGS_CONFIGMAP, startSettingsCluster } from '../support/settingsCluster.js';
import { echoed, httpGet, type HttpGetOptions, type HttpResult } from '../support/httpGet.js';
import { servingWorkerPids, untilRetired } from '../support/nginxWorkers.js';
import { applyTlsSecret } from '../support/tlsSecrets.js';

const HOST = 'site.header-settings.test';
const UNTIL = { timeoutMs: 20_000 };

let cluster: E2eCluster;

before(async () => {
  cluster = await startSettingsCluster('header-settings');
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
  await applyTlsSecret(cluster, 'site-tls', [HOST]);
  const rules = [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'echo']) } }];
  // ssl-redirect off: plain HTTP reaches the backend too.
  await applyIngress(
    cluster,
    ingress(
      cluster,
      'site',
      { tls: [{ hosts: [HOST], secretName: 'site-tls' }], rules },
      { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' },
    ),
  );
});
after(() => cluster?.close());

async function putConfigMap(name: string, data: Record<string, string>): Promise<void> {
  const body = { metadata: { name }, data };
  const { core, namespace } = cluster;
  await core.replaceNamespacedConfigMap({ name, namespace, body }).catch(() => core.createNamespacedConfigMap({ namespace, body }));
}

type RequestOptions = Omit<HttpGetOptions, 'port' | 'host'>;

const request = (options: RequestOptions = {}): Promise<HttpResult> =>
  httpGet({ port: options.https ? cluster.portico.ports.https : cluster.portico.ports.http, host: HOST, ...options });

/** Waits until a request meets `check` (the ConfigMap's change has been loaded), and returns that answer. */
const until = (check: (result: HttpResult) => void, options: RequestOptions = {}): Promise<HttpResult> =>
  eventually(async () => {
    const result = await request(options);
    check(result);
    return result;
  }, UNTIL);

/** The echo backend answers with these response headers. */
const respondWith = (headers: Record<string, string>, https = false): RequestOptions => ({
  path: `/response-headers?${new URLSearchParams(headers).toString()}`,
  https,
});

/**
 * Writes the whole global ConfigMap, then waits until a request meets `check`
 * (nginx loaded it) and, when that took a reload, until the workers of before
 * have retired: until then one may still take the next connection and answer
 * with the old configuration.
 */
async function settle(
  data: Record<string, string>,
  check: (result: HttpResult) => void,
  options: RequestOptions = {},
): Promise<HttpResult> {
  const serving = await servingWorkerPids(cluster.portico.prefix);
  await putConfigMap(SETTINGS_CONFIGMAP, data);
  const result = await until(check, options);
  const reloaded = (await servingWorkerPids(cluster.portico.prefix)).some((pid) => !serving.includes(pid));
  if (reloaded) await untilRetired(cluster.portico.prefix, serving, UNTIL.timeoutMs);
  return result;
}

describe('Server header', () => {
  test("server-tokens false (the default): no Server header at all, not even the backend's", async () => {
    // proxy-add-original-uri-header marks that this ConfigMap is the one loaded.
    const plain = await settle({ 'proxy-add-original-uri-header': 'true' }, (result) =>
      assert.equal(echoed(result).headers['x-original-uri'], '/'),
    );
    assert.equal(plain.headers.server, undefined);
    // nginx's own answers too (404 of the catch-all), and a backend's Server even with allow-backend-server-header.
    const own = await httpGet({ port: cluster.portico.ports.http, host: 'unknown.header-settings.test' });
    assert.equal(own.status, 404);
    assert.equal(own.headers.server, undefined);
    await settle({ 'allow-backend-server-header': 'true', 'proxy-add-original-uri-header': 'false' }, (result) =>
      assert.equal(echoed(result).headers['x-original-uri'], undefined),
    );
    const backend = await request(respondWith({ Server: 'echo-backend/1' }));
    assert.equal(backend.status, 200);
    assert.equal(backend.headers.server, undefined);
  });

  test("server-tokens true: nginx's Server with its version; allow-backend-server-header passes the backend's", async () => {
    const versioned = await settle({ 'server-tokens': 'true' }, (result) =>
      assert.match(String(result.headers.server), /^nginx\/\d+\.\d+\.\d+$/),
    );
    assert.equal(versioned.status, 200);
    // Without allow-backend-server-header nginx hides the backend's.
    assert.match(String((await request(respondWith({ Server: 'echo-backend/1' }))).headers.server), /^nginx\//);
    await settle(
      { 'server-tokens': 'true', 'allow-backend-server-header': 'true' },
      (result) => assert.equal(result.headers.server, 'echo-backend/1'),
      respondWith({ Server: 'echo-backend/1' }),
    );
  });
});

describe('response headers', () => {
  test("HSTS: a backend's Strict-Transport-Security is replaced by Portico's, not doubled", async () => {
    const backendHsts = respondWith({ 'Strict-Transport-Security': 'max-age=5' }, true);
    await settle(
      { 'hsts-max-age': '86400', 'hsts-include-subdomains': 'false', 'hsts-preload': 'true' },
      (result) => assert.equal(result.headers['strict-transport-security'], 'max-age=86400; preload'),
      backendHsts,
    );
    // Node joins repeated headers with ", ": one value means one header.
    const plainHttps = await request({ https: true });
    assert.equal(plainHttps.headers['strict-transport-security'], 'max-age=86400; preload');
  });

  test("hide-headers: the backend's header never reaches the client; others still do", async () => {
    const headers = respondWith({ 'X-Backend-Secret': 's3cret', 'X-Backend-Public': 'p' });
    await settle({}, (result) => assert.equal(result.headers['x-backend-secret'], 's3cret'), headers);
    const hidden = await settle(
      { 'hide-headers': 'X-Backend-Secret,X-Other' },
      (result) => assert.equal(result.headers['x-backend-secret'], undefined),
      headers,
    );
    assert.equal(hidden.headers['x-backend-public'], 'p');
  });
});

describe('add-headers and proxy-set-headers', () => {
  test("the named ConfigMaps' headers reach the client and the backend; an edit of one alone takes effect", async () => {
    await putConfigMap('response-headers', { 'X-Added': 'one', 'X-Served-By': '$server_port' });
    await putConfigMap('request-headers', { 'X-Sent': 'a', 'X-Forwarded-For': 'set-by-admin' });
    const answer = await settle(
      { 'add-headers': `${cluster.namespace}/response-headers`, 'proxy-set-headers': `${cluster.namespace}/request-headers` },
      (result) => assert.equal(result.headers['x-added'], 'one'),
    );
    assert.equal(answer.headers['x-served-by'], String(cluster.portico.ports.http));
    assert.equal(echoed(answer).headers['x-sent'], 'a');
    // Replaces Portico's own X-Forwarded-For rather than sending two.
    assert.equal(echoed(answer).headers['x-forwarded-for'], 'set-by-admin');
    // On every response, a backend's error too (waited for: a worker of before the reload may still take the next connection).
    await until((result) => assert.equal(result.headers['x-added'], 'one'), { path: '/status/503' });

    await putConfigMap('response-headers', { 'X-Added': 'two' });
    const edited = await until((result) => assert.equal(result.headers['x-added'], 'two'));
    assert.equal(edited.headers['x-served-by'], undefined);
    await putConfigMap('request-headers', { 'X-Sent': 'b' });
    await until((result) => assert.equal(echoed(result).headers['x-sent'], 'b'));
  });
});

describe('request header limits', () => {
  const withHeader = (bytes: number): RequestOptions => ({ headers: { 'X-Large': 'x'.repeat(bytes) } });

  test('large-client-header-buffers: a header up to the buffer size is accepted, a larger one refused (400)', async () => {
    await settle({}, (result) => assert.equal(result.status, 200), withHeader(7 * 1024));
    assert.equal((await request(withHeader(9 * 1024))).status, 400);
    await settle({ 'large-client-header-buffers': '4 16k' }, (result) => assert.equal(result.status, 200), withHeader(15 * 1024));
    assert.equal((await request(withHeader(17 * 1024))).status, 400);
  });

  test('enable-underscores-in-headers: a header with "_" reaches the backend only when enabled', async () => {
    const underscored: RequestOptions = { headers: { X_Under: 'u', 'X-Dash': 'd' } };
    const dropped = await settle({}, (result) => assert.equal(echoed(result).headers['x-dash'], 'd'), underscored);
    assert.equal(echoed(dropped).headers['x_under'], undefined);
    await settle(
      { 'enable-underscores-in-headers': 'true' },
      (result) => assert.equal(echoed(result).headers['x_under'], 'u'),
      underscored,
    );
  });
});
