// server-alias, from-to-www-redirect and mirror-target through the real API
// server, Portico, nginx and backends in the test network, asserting what
// ingress-nginx's e2e tests (alias.go, fromtowwwredirect.go, mirror.go) do:
// an alias answers as its host (with the host's certificate), a colliding
// alias is refused with a Warning while its owner keeps serving, the www
// twin redirects with the exact code and Location on HTTP and HTTPS, and the
// mirror receives a copy of each request (with or without its body) while the
// client gets the backend's answer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoreV1Event } from '@kubernetes/client-node';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpGetOptions, type HttpResult } from '../support/httpGet.js';
import { startRequestRecorder, type RecordedRequest, type RequestRecorder } from '../support/requestRecorder.js';
import { applyTlsSecret } from '../support/tlsSecrets.js';
import { applyIngress, createService, ingress, paths, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';

let cluster: E2eCluster;
let recorder: RequestRecorder;

before(async () => {
  cluster = await startE2eCluster('hosts');
  for (const service of ['echo', 'other']) await createService(cluster, service, await startBackends(cluster, service));
  recorder = await startRequestRecorder(cluster.network);
});
after(async () => {
  await recorder?.stop();
  await cluster?.close();
});

const host = (name: string): string => `${name}.hosts.test`;

/** An Ingress named `name` for `hosts[0]` (the first is also its name's host) to `service`, with these annotations. */
async function applyHost(
  name: string,
  annotations: Record<string, string>,
  options: { service?: string; tlsSecret?: string; tlsHosts?: string[] } = {},
): Promise<void> {
  const tls = options.tlsSecret === undefined ? {} : { tls: [{ hosts: options.tlsHosts ?? [host(name)], secretName: options.tlsSecret }] };
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
  await applyIngress(
    cluster,
    ingress(
      cluster,
      name,
      { rules: [{ host: host(name), http: { paths: paths(['/', 'Prefix', options.service ?? 'echo']) } }], ...tls },
      prefixed,
    ),
  );
}

type Request = Omit<HttpGetOptions, 'port' | 'host'>;

function send(hostname: string, request: Request = {}): Promise<HttpResult> {
  const { http, https } = cluster.portico.ports;
  return httpGet({ port: request.https ? https : http, host: hostname, ...request });
}

/** Waits until a request to `hostname` meets `check`, and returns that answer. */
function until(hostname: string, check: (result: HttpResult) => void, request: Request = {}): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await send(hostname, request);
      check(result);
      return result;
    },
    { timeoutMs: 20_000 },
  );
}

const status = (expected: number) => (result: HttpResult) => assert.equal(result.status, expected, result.body.slice(0, 200));

/** Right after a reload an old nginx worker may still take a connection, so every answer of the new configuration is waited for. */
const redirectsTo = (location: string) => (result: HttpResult) => {
  status(308)(result);
  assert.equal(result.headers.location, location);
};

/** An echo answer of `service` with `body` echoed. */
const echoes = (service: string, body: string) => (result: HttpResult) => {
  status(200)(result);
  const echo = echoed(result) as ReturnType<typeof echoed> & { body?: string };
  assert.equal(echo.service, service);
  assert.equal(echo.body, body);
};

/** Waits for a Warning Event with `reason` on the Ingress, and returns it. */
function untilWarning(name: string, reason: string): Promise<CoreV1Event> {
  return eventually(
    async () => {
      const events = await cluster.core.listNamespacedEvent({ namespace: cluster.namespace, fieldSelector: `involvedObject.name=${name}` });
      const found = events.items.find((event) => event.type === 'Warning' && event.reason === reason);
      assert.ok(found, `no ${reason} Warning on ${name}: ${events.items.map((event) => event.reason).join(', ')}`);
      return found;
    },
    { timeoutMs: 20_000 },
  );
}

describe('server-alias', () => {
  test('an alias (and a wildcard alias) answers like the host, with the Host header as sent', async () => {
    await applyHost('aliased', {});
    await until(host('aliased'), status(200));
    // ingress-nginx's first case: a name no Ingress has gets the default 404.
    assert.equal((await send('another.hosts.test')).status, 404);

    await applyHost('aliased', { 'server-alias': 'another.hosts.test, *.wild.hosts.test' });
    const alias = echoed(await until('another.hosts.test', status(200)));
    assert.equal(alias.service, 'echo');
    assert.equal(alias.host, 'another.hosts.test');
    assert.equal(echoed(await until('one.wild.hosts.test', status(200))).service, 'echo');
    assert.equal(echoed(await send(host('aliased'))).service, 'echo');
    // One label only, as Portico's wildcard hosts.
    assert.equal((await send('two.one.wild.hosts.test')).status, 404);
  });

  test("an alias gets the host's certificate when it covers the alias, over HTTPS", async () => {
    const certificate = await applyTlsSecret(cluster, 'alias-tls', [host('secure'), 'secure-alias.hosts.test']);
    await applyHost('secure', { 'server-alias': 'secure-alias.hosts.test' }, { tlsSecret: 'alias-tls' });
    const answer = await until(
      'secure-alias.hosts.test',
      (result) => {
        assert.equal(result.status, 200);
        assert.equal(result.certificate?.fingerprint256, certificate.fingerprint256);
      },
      { https: true },
    );
    assert.equal(echoed(answer).service, 'echo');
  });

  test("an alias that is another Ingress's host is refused with a Warning; that host keeps its own backend", async () => {
    await applyHost('owner', {}, { service: 'other' });
    await until(host('owner'), status(200));
    await applyHost('thief', { 'server-alias': 'owner.hosts.test,thief-alias.hosts.test' });
    const event = await untilWarning('thief', 'ServerAliasConflict');
    assert.match(event.message ?? '', /owner\.hosts\.test not added to host thief\.hosts\.test/);
    // The rest of the alias list is applied, and the owner is not taken over.
    assert.equal(echoed(await until('thief-alias.hosts.test', status(200))).service, 'echo');
    assert.equal(echoed(await send(host('owner'))).service, 'other');
  });
});

describe('from-to-www-redirect', () => {
  test('www.<host> redirects to <host> with 308, the port and the path without its trailing slash', async () => {
    await applyHost('bare', { 'from-to-www-redirect': 'true' });
    const origin = `http://bare.hosts.test:${cluster.portico.ports.http}`;
    await until('www.bare.hosts.test', redirectsTo(`${origin}/foo/?a=1`), { path: '/foo/?a=1' });
    await until('www.bare.hosts.test', redirectsTo(`${origin}/foo`), { path: '/foo/' });
    await until('www.bare.hosts.test', redirectsTo(origin));
    // Waited for too: a worker of before the reload may still take the connection (and 404 the new host).
    await until(host('bare'), (result) => assert.equal(echoed(result).service, 'echo'));
  });

  test('<host> redirects to www.<host> when the Ingress is for the www name', async () => {
    await applyIngress(
      cluster,
      ingress(
        cluster,
        'www-first',
        { rules: [{ host: 'www.first.hosts.test', http: { paths: paths(['/', 'Prefix', 'echo']) } }] },
        { 'nginx.ingress.kubernetes.io/from-to-www-redirect': 'true' },
      ),
    );
    await until('first.hosts.test', redirectsTo(`http://www.first.hosts.test:${cluster.portico.ports.http}/x`), { path: '/x' });
  });

  test('over HTTPS: the www name gets the certificate covering it and an https:// Location', async () => {
    const certificate = await applyTlsSecret(cluster, 'www-tls', [host('tlsbare'), 'www.tlsbare.hosts.test']);
    await applyHost(
      'tlsbare',
      { 'from-to-www-redirect': 'true' },
      { tlsSecret: 'www-tls', tlsHosts: [host('tlsbare'), 'www.tlsbare.hosts.test'] },
    );
    await until(
      'www.tlsbare.hosts.test',
      (result) => {
        redirectsTo(`https://tlsbare.hosts.test:${cluster.portico.ports.https}`)(result);
        assert.equal(result.certificate?.fingerprint256, certificate.fingerprint256);
      },
      { https: true, path: '/' },
    );
    // The host itself is served, not redirected.
    await until(host('tlsbare'), status(200), { https: true });
  });

  test('an Ingress for the www name wins: no redirect, a Warning on the redirecting Ingress', async () => {
    await applyIngress(
      cluster,
      ingress(cluster, 'clash-www', { rules: [{ host: 'www.clash.hosts.test', http: { paths: paths(['/', 'Prefix', 'other']) } }] }),
    );
    await applyHost('clash', { 'from-to-www-redirect': 'true' });
    await untilWarning('clash', 'WwwRedirectConflict');
    assert.equal(echoed(await until('www.clash.hosts.test', status(200))).service, 'other');
  });
});

describe('mirror-target', () => {
  const copiesTo = async (path: string): Promise<RecordedRequest> =>
    eventually(
      async () => {
        const copy = (await recorder.recorded()).find((request) => request.url.endsWith(path));
        assert.ok(copy, `no copy of ${path} at the mirror yet`);
        return copy;
      },
      { timeoutMs: 10_000 },
    );

  test('the mirror receives a copy with the body, the client the backend answer', async () => {
    const target = `http://${recorder.address}:${recorder.port}/copy$request_uri`;
    await applyHost('mirrored', { 'mirror-target': target, 'mirror-host': 'copy.hosts.test' });
    await until(host('mirrored'), echoes('echo', 'ready'), { method: 'POST', path: '/probe', body: 'ready' });
    await copiesTo('/copy/probe');

    await until(host('mirrored'), echoes('echo', 'payload'), { method: 'POST', path: '/with-body?q=1', body: 'payload' });
    const copy = await copiesTo('/copy/with-body?q=1');
    assert.deepEqual(copy, {
      method: 'POST',
      url: '/copy/with-body?q=1',
      host: 'copy.hosts.test',
      contentLength: '7',
      body: 'payload',
    });
  });

  test('mirror-request-body: off sends the copy without its body', async () => {
    const target = `http://${recorder.address}:${recorder.port}/nobody$request_uri`;
    await applyHost('unbodied', { 'mirror-target': target, 'mirror-request-body': 'off' });
    await until(host('unbodied'), echoes('echo', 'ready'), { method: 'POST', path: '/probe', body: 'ready' });
    await copiesTo('/nobody/probe');
    await until(host('unbodied'), echoes('echo', 'payload'), { method: 'POST', path: '/secret', body: 'payload' });
    const copy = await copiesTo('/nobody/secret');
    assert.equal(copy.body, '');
    assert.equal(copy.contentLength, undefined);
    // Without mirror-host, the Host of the copy is the target's.
    assert.equal(copy.host, recorder.address);
  });

  test('a mirror-target at Portico itself is refused with a Warning; the Ingress is served without it', async () => {
    await applyHost('looping', { 'mirror-target': `http://127.0.0.1:${cluster.portico.ports.http}/loop` });
    const event = await untilWarning('looping', 'MirrorTargetRefused');
    assert.match(event.message ?? '', /127\.0\.0\.1/);
    assert.equal(echoed(await until(host('looping'), status(200))).service, 'echo');
  });
});
