// CORS (enable-cors, cors-*) through a real kube-apiserver, Portico and nginx,
// asserting what ingress-nginx's test/e2e/annotations/cors.go asserts, and
// that a preflight is answered by nginx: the backend is a process that counts
// the requests it gets (test/support/externalAuthService.ts, which answers
// 200 to `x-test-auth: allow` and 401 to anything else).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpResult } from '../support/httpGet.js';
import { applyIngressAndReload, createService, ingress, paths } from '../support/e2eCluster.js';
import { startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';
import { startExternalAuthService, type ExternalAuthService } from '../support/externalAuthService.js';

let cluster: E2eCluster;
let counter: ExternalAuthService;

const COUNTER = 'counter';
const ALLOW = { 'x-test-auth': 'allow' };

before(async () => {
  cluster = await startE2eCluster('cors');
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
  counter = await startExternalAuthService(cluster.network);
  await cluster.core.createNamespacedService({
    namespace: cluster.namespace,
    body: { metadata: { name: COUNTER }, spec: { ports: [{ name: 'http', port: 80, targetPort: counter.port }] } },
  });
  await cluster.discovery.createNamespacedEndpointSlice({
    namespace: cluster.namespace,
    body: {
      metadata: { name: `${COUNTER}-slice`, labels: { 'kubernetes.io/service-name': COUNTER } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [counter.address], conditions: { ready: true } }],
      ports: [{ name: 'http', port: counter.port, protocol: 'TCP' }],
    },
  });
});
after(async () => {
  await counter?.stop();
  await cluster?.close();
});

const hostOf = (name: string): string => `${name}.cors.test`;

async function applyCors(name: string, annotations: Record<string, string>, service = COUNTER): Promise<void> {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
  // Until the workers that served before have retired, one may still take a request and answer with the old
  // nginx.conf (a 404 for this host): the tests below send several requests after the first right answer.
  await applyIngressAndReload(
    cluster,
    ingress(cluster, name, { rules: [{ host: hostOf(name), http: { paths: paths(['/', 'Prefix', service]) } }] }, prefixed),
  );
}

function send(name: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<HttpResult> {
  return httpGet({ port: cluster.portico.ports.http, host: hostOf(name), ...options });
}

/** Waits until the host's CORS configuration is loaded: a request from `origin` gets its Allow-Origin. */
function untilCors(name: string, origin: string, expected = origin): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await send(name, { headers: { ...ALLOW, origin } });
      assert.equal(result.status, 200);
      assert.equal(result.headers['access-control-allow-origin'], expected);
      return result;
    },
    { timeoutMs: 20_000 },
  );
}

const corsHeaderNames = (result: HttpResult): string[] => Object.keys(result.headers).filter((name) => name.startsWith('access-control-'));

describe('enable-cors alone: any origin, ingress-nginx defaults', () => {
  before(() => applyCors('any', { 'enable-cors': 'true' }));

  test('a request gets Allow-Origin "*" and the default headers, whatever its Origin', async () => {
    const result = await untilCors('any', 'https://anything.example', '*');
    assert.equal(result.headers['access-control-allow-credentials'], 'true');
    assert.equal(result.headers['access-control-allow-methods'], 'GET, PUT, POST, DELETE, PATCH, OPTIONS');
    assert.equal(
      result.headers['access-control-allow-headers'],
      'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization',
    );
    assert.equal(result.headers['access-control-max-age'], '1728000');
    assert.equal(result.headers['access-control-expose-headers'], undefined);
    const withoutOrigin = await send('any', { headers: ALLOW });
    assert.equal(withoutOrigin.status, 200);
    assert.equal(withoutOrigin.headers['access-control-allow-origin'], '*');
  });

  test('the preflight is answered 204 by nginx with the headers, the backend never sees it', async () => {
    await untilCors('any', 'https://anything.example', '*');
    const before = (await counter.requests()).count;
    const preflight = await send('any', {
      method: 'OPTIONS',
      headers: { origin: 'https://anything.example', 'access-control-request-method': 'PUT' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.body, '');
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.equal(preflight.headers['access-control-allow-methods'], 'GET, PUT, POST, DELETE, PATCH, OPTIONS');
    assert.equal(preflight.headers['access-control-max-age'], '1728000');
    assert.equal(preflight.headers['access-control-allow-credentials'], 'true');
    assert.equal(preflight.headers['content-type'], 'text/plain charset=UTF-8');
    assert.equal(preflight.headers['content-length'], '0');
    // A request that does reach the counter moves its count: the preflight did not.
    assert.equal((await send('any', { headers: ALLOW })).status, 200);
    assert.equal((await counter.requests()).count, before + 1);
  });
});

describe('an origin list (exact, port, wildcard subdomain, other schemes) and every setting', () => {
  before(() =>
    applyCors('listed', {
      'enable-cors': 'true',
      'cors-allow-origin': 'https://origin.cors.com:8080, http://*.origin.com, test://localhost, origin.example',
      'cors-allow-methods': 'POST, GET',
      'cors-allow-headers': 'DNT, User-Agent',
      'cors-expose-headers': 'X-CustomResponseHeader, X-CustomSecondHeader',
      'cors-allow-credentials': 'false',
      'cors-max-age': '200',
    }),
  );

  test("an allowed origin is echoed, with the annotations' headers and no credentials header", async () => {
    const result = await untilCors('listed', 'https://origin.cors.com:8080');
    assert.equal(result.headers['access-control-allow-methods'], 'POST, GET');
    assert.equal(result.headers['access-control-allow-headers'], 'DNT, User-Agent');
    assert.equal(result.headers['access-control-expose-headers'], 'X-CustomResponseHeader, X-CustomSecondHeader');
    assert.equal(result.headers['access-control-max-age'], '200');
    assert.equal(result.headers['access-control-allow-credentials'], undefined);
    await untilCors('listed', 'test://localhost');
    // nginx matches case-insensitively (ingress-nginx's ~*) and echoes the Origin as sent.
    await untilCors('listed', 'HTTPS://ORIGIN.CORS.COM:8080');
  });

  test('a wildcard allows exactly one label in its place', async () => {
    await untilCors('listed', 'http://abc.origin.com');
    await untilCors('listed', 'http://bar-foo.origin.com');
    for (const foreign of ['http://bar.foo.origin.com', 'http://origin.com', 'https://abc.origin.com', 'http://abc.origin.com:8080']) {
      const result = await send('listed', { headers: { ...ALLOW, origin: foreign } });
      assert.equal(result.status, 200);
      assert.deepEqual(corsHeaderNames(result), [], foreign);
    }
  });

  test('another origin, a missing port, a scheme-less entry or no Origin get no CORS header at all', async () => {
    await untilCors('listed', 'https://origin.cors.com:8080');
    const foreign = [
      'http://no.origin.cors.com',
      'https://origin.cors.com',
      'https://origin.cors.com:8081',
      'origin.example',
      'https://origin.example',
    ];
    for (const origin of [...foreign, undefined]) {
      const result = await send('listed', { headers: { ...ALLOW, ...(origin === undefined ? {} : { origin }) } });
      assert.equal(result.status, 200);
      assert.deepEqual(corsHeaderNames(result), [], String(origin));
    }
  });

  test("an allowed preflight is answered 204 by nginx; a foreign origin's OPTIONS goes to the backend", async () => {
    await untilCors('listed', 'http://abc.origin.com');
    const before = (await counter.requests()).count;
    const preflight = await send('listed', { method: 'OPTIONS', headers: { origin: 'http://abc.origin.com' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'http://abc.origin.com');
    assert.equal(preflight.headers['access-control-allow-methods'], 'POST, GET');
    assert.equal(preflight.headers['access-control-max-age'], '200');
    assert.equal(preflight.headers['content-length'], '0');
    assert.equal((await counter.requests()).count, before);
    // Not a preflight Portico answers: the counter's own 401 (no x-test-auth), counted.
    const foreign = await send('listed', { method: 'OPTIONS', headers: { origin: 'http://origin.com' } });
    assert.equal(foreign.status, 401);
    assert.deepEqual(corsHeaderNames(foreign), []);
    const last = await counter.requests();
    assert.equal(last.count, before + 1);
    assert.equal(last.last?.method, 'OPTIONS');
  });

  test("the headers are on the backend's error answers too (add_header always)", async () => {
    await untilCors('listed', 'https://origin.cors.com:8080');
    const denied = await send('listed', { headers: { origin: 'https://origin.cors.com:8080' } });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers['access-control-allow-origin'], 'https://origin.cors.com:8080');
  });
});

test('an Ingress without CORS: OPTIONS reaches the backend and no CORS header is added', async () => {
  await applyCors('plain', {}, 'echo');
  const result = await eventually(async () => {
    const answer = await send('plain', { method: 'OPTIONS', headers: { origin: 'https://a.example' } });
    assert.equal(answer.status, 200);
    return answer;
  });
  assert.equal(echoed(result).service, 'echo');
  assert.deepEqual(corsHeaderNames(result), []);
});
