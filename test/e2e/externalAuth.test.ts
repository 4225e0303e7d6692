// External authentication (auth-url and the global-auth-* ConfigMap keys)
// through the real API server, Portico and nginx, with an auth service
// process of the tests' own (test/support/externalAuthService.ts) in the test
// network: 2xx lets a request through with the auth response's headers, 401
// and 403 reach the client, 401 with auth-signin becomes a 302, the cache
// spares the auth service, an unreachable one gives 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpGetOptions, type HttpResult } from '../support/httpGet.js';
import { startExternalAuthService, type ExternalAuthService } from '../support/externalAuthService.js';
import {
  applyIngress,
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
  type PathSpec,
} from '../support/e2eCluster.js';

let cluster: E2eCluster;
let auth: ExternalAuthService;

before(async () => {
  cluster = await startE2eCluster('external-auth');
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
  auth = await startExternalAuthService(cluster.network);
});
after(async () => {
  await auth?.stop();
  await cluster?.close();
});

const ALLOW = { 'x-test-auth': 'allow' };

function hostOf(name: string): string {
  return `${name}.external-auth.test`;
}

function authUrl(path = '/check'): string {
  return `http://${auth.address}:${auth.port}${path}`;
}

/** Applies the Ingress and waits for its reload, and for the workers from before it to retire (one would still answer 404). */
async function applyAnnotated(portico: E2eCluster, name: string, annotations: Record<string, string>, specs?: PathSpec[]): Promise<void> {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
  const rules = [{ host: hostOf(name), http: { paths: paths(...(specs ?? [['/', 'Prefix', 'echo']])) } }];
  await applyIngressAndReload(portico, ingress(portico, name, { rules }, prefixed));
}

type RequestOptions = Omit<HttpGetOptions, 'port' | 'host'>;

function send(portico: E2eCluster, name: string, options: RequestOptions = {}): Promise<HttpResult> {
  return httpGet({ port: portico.portico.ports.http, host: hostOf(name), ...options });
}

/** Waits until a request gets `status` (the Ingress may not be loaded yet), and returns that answer. */
function untilStatus(portico: E2eCluster, name: string, status: number, options: RequestOptions = {}): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await send(portico, name, options);
      assert.equal(result.status, status, `${hostOf(name)}${options.path ?? '/'}: ${result.body.slice(0, 200)}`);
      return result;
    },
    { timeoutMs: 20_000 },
  );
}

describe('auth-url', () => {
  before(() => applyAnnotated(cluster, 'basic', { 'auth-url': authUrl('/check?host=$host'), 'auth-response-headers': 'X-Auth-User' }));

  test('the auth service allows: 200, and its X-Auth-User reaches the backend', async () => {
    const result = await untilStatus(cluster, 'basic', 200, { path: '/page?q=1', headers: ALLOW });
    assert.equal(echoed(result).headers['x-auth-user'], 'alice');
    const { last } = await auth.requests();
    // The check is a bodyless copy of the request, with ingress-nginx's headers, to the URL with its variable filled in.
    assert.equal(last?.url, `/check?host=${hostOf('basic')}`);
    assert.equal(last?.headers['x-original-url'], `http://${hostOf('basic')}/page?q=1`);
    assert.equal(last?.headers['x-original-method'], 'GET');
    assert.equal(last?.headers['x-sent-from'], 'nginx-ingress-controller');
    assert.equal(last?.headers.host, auth.address);
  });

  test('the auth service refuses: its 401 or 403 reaches the client, not the backend', async () => {
    await untilStatus(cluster, 'basic', 200, { headers: ALLOW });
    assert.equal((await send(cluster, 'basic')).status, 401);
    assert.equal((await send(cluster, 'basic', { headers: { 'x-test-auth': 'forbid' } })).status, 403);
  });

  test('a client cannot supply the auth response header itself', async () => {
    await untilStatus(cluster, 'basic', 200, { headers: ALLOW });
    const result = await send(cluster, 'basic', { headers: { ...ALLOW, 'x-auth-user': 'mallory' } });
    assert.equal(echoed(result).headers['x-auth-user'], 'alice');
  });
});

test('auth-signin: a 401 becomes a 302 to the sign-in URL, with the original URL escaped in rd=', async () => {
  await applyAnnotated(cluster, 'signin', { 'auth-url': authUrl(), 'auth-signin': 'https://signin.example/start' });
  const result = await untilStatus(cluster, 'signin', 302, { path: '/a/b?x=1&y=2' });
  assert.equal(result.headers.location, `https://signin.example/start?rd=http://${hostOf('signin')}%2Fa%2Fb%3Fx%3D1%26y%3D2`);
  assert.equal((await send(cluster, 'signin', { headers: ALLOW })).status, 200);
});

test('auth-signin-redirect-param names the parameter', async () => {
  await applyAnnotated(cluster, 'signin-param', {
    'auth-url': authUrl(),
    'auth-signin': 'https://signin.example/start?theme=dark',
    'auth-signin-redirect-param': 'next',
  });
  const result = await untilStatus(cluster, 'signin-param', 302, { path: '/p' });
  assert.equal(result.headers.location, `https://signin.example/start?theme=dark&next=http://${hostOf('signin-param')}%2Fp`);
});

test('auth-cache-key and auth-cache-duration: a second identical request does not reach the auth service', async () => {
  await applyAnnotated(cluster, 'cached', {
    'auth-url': authUrl(),
    'auth-cache-key': '$http_x_test_auth$http_x_cache_round',
    'auth-cache-duration': '200 5m',
  });
  // A key of this run's own, so nothing cached before counts.
  const headers = { ...ALLOW, 'x-cache-round': String(Date.now()) };
  await untilStatus(cluster, 'cached', 200, { headers });
  const before = (await auth.requests()).count;
  assert.equal((await send(cluster, 'cached', { headers })).status, 200);
  assert.equal((await auth.requests()).count, before);
  // Another key asks again.
  assert.equal((await send(cluster, 'cached', { headers: { ...headers, 'x-cache-round': `${headers['x-cache-round']}-2` } })).status, 200);
  assert.equal((await auth.requests()).count, before + 1);
});

test('without auth-cache-key every request asks the auth service', async () => {
  await applyAnnotated(cluster, 'uncached', { 'auth-url': authUrl() });
  await untilStatus(cluster, 'uncached', 200, { headers: ALLOW });
  const before = await auth.requests();
  for (let i = 0; i < 3; i++) assert.equal((await send(cluster, 'uncached', { headers: ALLOW })).status, 200);
  const after = await auth.requests();
  assert.equal(after.count, before.count + 3);
  // auth_request: a connection of its own for each.
  assert.equal(after.connections, before.connections + 3);
});

test('an auth service that cannot be reached gives 500', async () => {
  // An address of the test network where nothing listens.
  const nowhere = await cluster.network.addAddress();
  await applyAnnotated(cluster, 'auth-down', { 'auth-url': `http://${nowhere}:9/check` });
  await untilStatus(cluster, 'auth-down', 500, { headers: ALLOW });
});

test('an auth-url carrying nginx syntax is Rejected; the last good version keeps authenticating (CVE-2025-24514)', async () => {
  await applyAnnotated(cluster, 'injected', { 'auth-url': authUrl() });
  await untilStatus(cluster, 'injected', 401);
  const rules = [{ host: hostOf('injected'), http: { paths: paths(['/', 'Prefix', 'echo']) } }];
  const hostileValues: Array<[value: string, reason: string]> = [
    [`${authUrl()};\n}\nlocation /open { return 200; }\nlocation /x {`, 'control character'],
    [`${authUrl()}"; return 200; #`, 'invalid value'],
  ];
  for (const [hostile, reason] of hostileValues) {
    // A refused version reloads nothing: applyIngress, not applyAnnotated.
    await applyIngress(cluster, ingress(cluster, 'injected', { rules }, { 'nginx.ingress.kubernetes.io/auth-url': hostile }));
    await eventually(
      async () => {
        const events = await cluster.core.listNamespacedEvent({
          namespace: cluster.namespace,
          fieldSelector: 'involvedObject.name=injected',
        });
        const messages = events.items.filter((event) => event.reason === 'Rejected').map((event) => event.message ?? '');
        assert.ok(
          messages.some((message) => message.includes('auth-url') && message.includes(reason)),
          JSON.stringify(messages),
        );
      },
      { timeoutMs: 15_000 },
    );
    assert.equal((await send(cluster, 'injected')).status, 401);
    assert.equal((await send(cluster, 'injected', { path: '/open' })).status, 401);
  }
});

test('auth-method sets the method of the auth request', async () => {
  await applyAnnotated(cluster, 'method', { 'auth-url': authUrl(), 'auth-method': 'POST' });
  await untilStatus(cluster, 'method', 200, { headers: ALLOW });
  assert.equal((await auth.requests()).last?.method, 'POST');
});

describe('auth-proxy-set-headers', () => {
  const CONFIG_MAP = 'auth-headers';

  test('a missing ConfigMap answers 503 with a Warning; once created, its headers reach the auth service', async () => {
    await applyAnnotated(cluster, 'set-headers', { 'auth-url': authUrl(), 'auth-proxy-set-headers': CONFIG_MAP });
    await untilStatus(cluster, 'set-headers', 503, { headers: ALLOW });
    await eventually(
      async () => {
        const events = await cluster.core.listNamespacedEvent({
          namespace: cluster.namespace,
          fieldSelector: 'involvedObject.name=set-headers',
        });
        assert.ok(
          events.items.some((event) => event.type === 'Warning' && event.reason === 'InvalidAuthProxySetHeaders'),
          JSON.stringify(events.items.map((event) => event.reason)),
        );
      },
      { timeoutMs: 15_000 },
    );

    await cluster.core.createNamespacedConfigMap({
      namespace: cluster.namespace,
      body: { metadata: { name: CONFIG_MAP }, data: { 'X-From-Map': 'hello "world"', 'X-Client-Host': '$host' } },
    });
    await untilStatus(cluster, 'set-headers', 200, { headers: ALLOW });
    const { last } = await auth.requests();
    assert.equal(last?.headers['x-from-map'], 'hello "world"');
    assert.equal(last?.headers['x-client-host'], hostOf('set-headers'));
  });

  test('a header value that is not one line of printable text denies the location', async () => {
    await cluster.core.createNamespacedConfigMap({
      namespace: cluster.namespace,
      body: { metadata: { name: 'auth-headers-hostile' }, data: { 'X-Evil': 'a";\n  return 200 "open' } },
    });
    await applyAnnotated(cluster, 'set-headers-hostile', { 'auth-url': authUrl(), 'auth-proxy-set-headers': 'auth-headers-hostile' });
    await untilStatus(cluster, 'set-headers-hostile', 503, { headers: ALLOW });
  });
});

describe('global-auth-url', () => {
  const SETTINGS = 'portico-settings';
  let global: E2eCluster;

  before(async () => {
    await cluster.core.createNamespacedConfigMap({
      namespace: cluster.namespace,
      body: {
        metadata: { name: SETTINGS },
        data: { 'global-auth-url': authUrl(), 'global-auth-response-headers': 'X-Auth-User', 'no-auth-locations': '/public' },
      },
    });
    // A second Portico in the suite's namespace, with a class of its own, reading that ConfigMap.
    global = await startE2eCluster('external-auth-global', [`--configmap=${cluster.namespace}/${SETTINGS}`], {
      namespace: cluster.namespace,
    });
  });
  after(() => global?.close());

  test('applies to an Ingress without annotations', async () => {
    await applyAnnotated(global, 'global-default', {});
    await untilStatus(global, 'global-default', 401);
    assert.equal(echoed(await send(global, 'global-default', { headers: ALLOW })).headers['x-auth-user'], 'alice');
  });

  test('not to an Ingress with enable-global-auth: "false"', async () => {
    await applyAnnotated(global, 'global-off', { 'enable-global-auth': 'false' });
    await applyAnnotated(global, 'global-on', { 'enable-global-auth': 'true' });
    await untilStatus(global, 'global-on', 401);
    await untilStatus(global, 'global-off', 200);
  });

  test('not to paths under no-auth-locations', async () => {
    await applyAnnotated(global, 'global-public', {}, [
      ['/', 'Prefix', 'echo'],
      ['/public', 'Prefix', 'echo'],
    ]);
    await untilStatus(global, 'global-public', 401, { path: '/private' });
    await untilStatus(global, 'global-public', 200, { path: '/public/page' });
  });
});

describe('auth-keepalive', () => {
  const SETTINGS = 'portico-http1';
  let http1: E2eCluster;

  before(async () => {
    // As ingress-nginx, keep-alive is used only with use-http2 off: a Portico of its own reading that.
    await cluster.core.createNamespacedConfigMap({
      namespace: cluster.namespace,
      body: { metadata: { name: SETTINGS }, data: { 'use-http2': 'false' } },
    });
    http1 = await startE2eCluster('external-auth-keepalive', [`--configmap=${cluster.namespace}/${SETTINGS}`], {
      namespace: cluster.namespace,
    });
  });
  after(() => http1?.close());

  const REQUESTS = 8;

  test('several auth requests share a connection; allowed, refused and the auth response header as with auth_request', async () => {
    await applyAnnotated(http1, 'kept', { 'auth-url': authUrl(), 'auth-keepalive': '4', 'auth-response-headers': 'X-Auth-User' });
    await untilStatus(http1, 'kept', 200, { headers: ALLOW });
    const before = await auth.requests();
    for (let i = 0; i < REQUESTS; i++) {
      const result = await send(http1, 'kept', { headers: { ...ALLOW, 'x-auth-user': 'mallory' } });
      assert.equal(result.status, 200);
      assert.equal(echoed(result).headers['x-auth-user'], 'alice');
    }
    const after = await auth.requests();
    assert.equal(after.count, before.count + REQUESTS);
    // Each nginx worker keeps its own idle connections: at most one new connection per worker (2 cores, 2 workers).
    assert.ok(after.connections - before.connections <= 2, `${after.connections - before.connections} connections for ${REQUESTS}`);
    assert.equal(after.last?.headers.connection, undefined);
    assert.equal((await send(http1, 'kept')).status, 401);
    assert.equal((await send(http1, 'kept', { headers: { 'x-test-auth': 'forbid' } })).status, 403);
  });

  test('without auth-keepalive, the same Portico opens a connection per auth request', async () => {
    await applyAnnotated(http1, 'unkept', { 'auth-url': authUrl() });
    await untilStatus(http1, 'unkept', 200, { headers: ALLOW });
    const before = await auth.requests();
    for (let i = 0; i < 3; i++) assert.equal((await send(http1, 'unkept', { headers: ALLOW })).status, 200);
    assert.equal((await auth.requests()).connections, before.connections + 3);
  });

  test('a 401 with auth-signin still becomes the 302 to the sign-in URL', async () => {
    await applyAnnotated(http1, 'kept-signin', {
      'auth-url': authUrl(),
      'auth-keepalive': '2',
      'auth-signin': 'https://signin.example/start',
    });
    const result = await untilStatus(http1, 'kept-signin', 302, { path: '/a?b=c' });
    assert.equal(result.headers.location, `https://signin.example/start?rd=http://${hostOf('kept-signin')}%2Fa%3Fb%3Dc`);
  });

  test('an auth service that cannot be reached gives 500', async () => {
    const nowhere = await cluster.network.addAddress();
    await applyAnnotated(http1, 'kept-down', { 'auth-url': `http://${nowhere}:9/check`, 'auth-keepalive': '2' });
    await untilStatus(http1, 'kept-down', 500, { headers: ALLOW });
  });
});
