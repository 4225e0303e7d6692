// A new host before its reload: Portico's rendered nginx.conf with a real
// nginx, given the live state of a configuration whose nginx.conf it has not
// loaded yet. The catch-all server's Lua (lua/portico/routes.lua) must route
// the new host's paths as its own server block will, and leave every other
// request to the catch-all.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Agent, request } from 'undici';
import { liveStateOf } from '../../src/dataplane/live/liveState.js';
import { NginxDataPlane } from '../../src/dataplane/nginxDataPlane.js';
import { silentLogger } from '../../src/log/logger.js';
import type { Configuration } from '../../src/model/types.js';
import { startEchoServer, type RunningEchoServer } from '../../tools/echo/echoServer.js';
import { backend, configuration, ingressRef, location, server } from '../dataplane/nginx/render/fixtures.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { missingLuaNginx } from './luaNginx.js';

const options = { skip: missingLuaNginx, timeout: 60_000 };

const echoes: RunningEchoServer[] = [];
let dir: string;

before(async () => {
  for (const service of ['old', 'shop', 'login']) {
    echoes.push(await startEchoServer({ service, instance: `${service}-1`, host: '127.0.0.1', port: 0 }));
  }
  dir = await mkdtemp(join(tmpdir(), 'portico-pending-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
});

after(async () => {
  for (const echo of echoes) await echo.close();
  await rm(dir, { recursive: true, force: true });
});

const endpointOf = (index: number) => [{ address: '127.0.0.1', port: echoes[index]!.port }];

function configurations(): { running: Configuration; next: Configuration } {
  const old = backend('default-old-80', endpointOf(0), { name: 'old' });
  const shop = backend('shop-web-80', endpointOf(1), { namespace: 'shop', name: 'web' });
  const login = backend('shop-login-80', endpointOf(2), { namespace: 'shop', name: 'login' });
  const running = configuration({
    servers: [server('_', []), server('old.example.com', [location('/', 'prefix', old.name)])],
    backends: [old],
  });
  const next = configuration({
    servers: [
      ...running.servers,
      server('new.example.com', [
        location('/shop', 'prefix', shop.name, { ingress: ingressRef('shop', 'web') }),
        location('/shop/login', 'exact', login.name, { ingress: ingressRef('shop', 'login') }),
      ]),
      // A TLS host: plain HTTP redirects to HTTPS, HTTPS answers with HSTS.
      server('secure.example.com', [location('/', 'prefix', shop.name), location('/missing/', 'exact', undefined)], { tls: true }),
    ],
    backends: [old, shop, login],
  });
  return { running, next };
}

/** A data plane (not started) under the test's folder, on free loopback ports. */
async function dataPlaneIn(name: string): Promise<{ dataPlane: NginxDataPlane; http: number; https: number }> {
  const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
  const dataPlane = new NginxDataPlane({
    prefix: join(dir, name), logger: silentLogger(), ports: { http, https, defaultServer, status }, listenAddresses: ['127.0.0.1'],
    endpointGuard: { porticoPorts: [http, https, defaultServer, status], interfaceAddresses: [], refuseLoopbackEverywhere: false },
  });
  return { dataPlane, http, https };
}

async function instanceAt(port: number, host: string, path: string): Promise<string | number> {
  const answer = await httpGet({ port, host, path });
  return answer.status === 200 ? echoed(answer).instance : answer.status;
}

/** An HTTPS answer (SNI `host`): the echo instance or the status, and whether it carried HSTS. */
async function tlsAnswer(port: number, host: string, path: string): Promise<string> {
  const answer = await httpGet({ port, host, path, https: true });
  const what = answer.status === 200 ? echoed(answer).instance : String(answer.status);
  return `${what} ${answer.headers['strict-transport-security'] === undefined ? 'without' : 'with'} HSTS`;
}

test('the catch-all routes a new plain host from live state alone, as its server block will once loaded', options, async () => {
  const { dataPlane, http, https } = await dataPlaneIn('nginx');
  const { running, next } = configurations();
  try {
    await dataPlane.apply(running);
    const servedHosts = new Set(running.servers.map((entry) => entry.hostname));
    assert.equal(await instanceAt(http, 'new.example.com', '/shop/cart'), 404, 'not routed before the push');

    await dataPlane.live.push(liveStateOf(next, servedHosts));
    const expected: Array<[string, string, string | number]> = [
      ['new.example.com', '/shop/cart', 'shop-1'],
      ['new.example.com', '/shop', 'shop-1'], // the prefix path itself
      ['new.example.com', '/shop/login', 'login-1'], // exact beats the shorter prefix
      ['new.example.com', '/shop/login/x', 'shop-1'], // ... for itself only
      ['NEW.example.com:8080', '/shop/', 'shop-1'], // $host: lower case, no port
      ['new.example.com', '/shopping', 404], // element-wise: the generated "/" answers
      ['new.example.com', '/', 404],
      ['secure.example.com', '/', 308], // to HTTPS, below
      ['unknown.example.com', '/shop', 404],
      ['old.example.com', '/shop', 'old-1'], // served hosts never reach the catch-all
    ];
    for (const [host, path, answer] of expected) assert.equal(await instanceAt(http, host, path), answer, `${host}${path}`);
    assert.equal(await tlsAnswer(https, 'secure.example.com', '/'), 'shop-1 with HSTS');
    assert.equal(await tlsAnswer(https, 'secure.example.com', '/missing/'), '404 with HSTS');
    const redirectBefore = (await httpGet({ port: http, host: 'secure.example.com', path: '/a/b/?q=1' })).headers.location;
    assert.equal(redirectBefore, 'https://secure.example.com/a/b/?q=1');
    assert.equal(dataPlane.nginx.reloads, 0, 'no reload so far');

    // What the proxied request carries is what the host's own location will send.
    const proxied = echoed(await httpGet({ port: http, host: 'new.example.com', path: '/shop/cart?x=1' }));
    assert.equal(proxied.path, '/shop/cart');
    assert.equal(proxied.query, 'x=1');
    assert.equal(proxied.headers['x-forwarded-host'], 'new.example.com');
    assert.match(proxied.headers['x-request-id'] ?? '', /^[0-9a-f]{32}$/);

    // A document routes.lua cannot use is refused, and the routes in use stay.
    const configuration = new Agent({ connect: { socketPath: dataPlane.nginx.layout.configurationSocket } });
    for (const body of ['{"hosts": []', '{"hosts": {"a.example.com": [{"path": "shop"}]}}', '{"hosts": {"a.example.com": {}}}']) {
      const refused = await request('http://localhost/configuration/routes', { method: 'POST', body, dispatcher: configuration });
      assert.equal(refused.statusCode, 400, `${body}: ${await refused.body.text()}`);
    }
    assert.equal(await instanceAt(http, 'new.example.com', '/shop/cart'), 'shop-1');

    assert.equal((await (await dataPlane.apply(next)).done).outcome, 'reloaded');
    for (const [host, path, answer] of expected) assert.equal(await instanceAt(http, host, path), answer, `after the reload: ${host}${path}`);
    // The host's own server block answers as its pending route did.
    assert.equal(await tlsAnswer(https, 'secure.example.com', '/'), 'shop-1 with HSTS');
    assert.equal(await tlsAnswer(https, 'secure.example.com', '/missing/'), '404 with HSTS');
    assert.equal((await httpGet({ port: http, host: 'secure.example.com', path: '/a/b/?q=1' })).headers.location, redirectBefore);
  } finally {
    await dataPlane.stop();
  }
});

test("the catch-all routes a new regex host before its reload as its `~*` locations will: first match in order, case-insensitive", options, async () => {
  const { dataPlane, http } = await dataPlaneIn('nginx-regex');
  const { running, next: base } = configurations();
  const [, shop, login] = base.backends;
  const useRegex = { annotations: { rewrite: { useRegex: true } } };
  const next: Configuration = {
    ...base,
    servers: [
      ...running.servers,
      // The model's order: longest path first.
      server('re.example.com', [
        location('/v[0-9]+/items', 'regex', shop!.name, useRegex),
        location('/v1', 'regex', login!.name, useRegex),
        location('/', 'regex', undefined),
      ]),
      // A rewrite-target: not reproduced by the pending route, so the host waits for its reload.
      server('rewrite.example.com', [
        location('/app(/|$)(.*)', 'regex', shop!.name, { annotations: { rewrite: { useRegex: true, target: '/$2' } } }),
        location('/', 'regex', undefined),
      ]),
    ],
  };
  try {
    await dataPlane.apply(running);
    const servedHosts = new Set(running.servers.map((entry) => entry.hostname));
    await dataPlane.live.push(liveStateOf(next, servedHosts));
    const expected: Array<[string, string, string | number]> = [
      ['re.example.com', '/v2/items/7', 'shop-1'],
      ['re.example.com', '/V12/ITEMS', 'shop-1'], // ~*: case-insensitive
      ['re.example.com', '/v1/items', 'shop-1'], // both match: the first in order wins
      ['re.example.com', '/v1x', 'login-1'], // anchored at the start only
      ['re.example.com', '/x/v1', 404], // ... at the start: the generated "/" answers
      ['re.example.com', '/vx/items', 404],
    ];
    for (const [host, path, answer] of expected) assert.equal(await instanceAt(http, host, path), answer, `before the reload: ${host}${path}`);
    assert.equal(await instanceAt(http, 'rewrite.example.com', '/app/x'), 404, 'a rewrite-target host waits for its reload');
    assert.equal(dataPlane.nginx.reloads, 0, 'no reload so far');

    assert.equal((await (await dataPlane.apply(next)).done).outcome, 'reloaded');
    for (const [host, path, answer] of expected) assert.equal(await instanceAt(http, host, path), answer, `after the reload: ${host}${path}`);
    assert.equal(echoed(await httpGet({ port: http, host: 'rewrite.example.com', path: '/app/x' })).path, '/x', 'its own server rewrites');
  } finally {
    await dataPlane.stop();
  }
});
