// Live backends through lua/portico: pushes to the status server reach
// traffic without a reload; round robin spreads evenly across two workers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEchoServer, type RunningEchoServer } from '../../tools/echo/echoServer.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts, refusingLoopbackPort } from '../support/freePort.js';
import { httpGet, echoed } from '../support/httpGet.js';
import {
  DEFAULT_LOCATION_BACKEND,
  luaProblems,
  missingLuaNginx,
  pushBackends,
  startLuaNginx,
  statusRequest,
  type BackendEndpoint,
  type RunningLuaNginx,
} from './luaNginx.js';

const TEST_TIMEOUT_MS = 60_000;

let nginx: RunningLuaNginx;
const echoes: RunningEchoServer[] = [];
let pidsAtStart: { master: number; workers: number[] };

const endpointOf = (echo: RunningEchoServer): BackendEndpoint => ({ address: echo.address, port: echo.port });
const instanceOf = (index: number): string => `echo-${index}`;
/** An echo backend's instance name, by its position in `echoes`. */
const echo = (index: number): RunningEchoServer => {
  const server = echoes[index];
  if (server === undefined) throw new Error(`no echo server ${index}`);
  return server;
};

/** `count` sequential requests on fresh connections (no keep-alive: each may land on either worker); instance → hits. */
async function spread(path: string, count: number): Promise<Map<string, number>> {
  const hits = new Map<string, number>();
  const deadline = Date.now() + 30_000;
  for (let i = 0; i < count; i++) {
    if (Date.now() > deadline) throw new Error(`only ${i} of ${count} requests within 30 s`);
    const result = await httpGet({ port: nginx.ports.http, path });
    assert.equal(result.status, 200, `request ${i} to ${path}: ${result.body.slice(0, 200)}`);
    const { instance } = echoed(result);
    hits.set(instance, (hits.get(instance) ?? 0) + 1);
  }
  return hits;
}

async function statusOf(path: string): Promise<number> {
  return (await httpGet({ port: nginx.ports.http, path })).status;
}

before(async () => {
  for (let i = 0; i < 5; i++) {
    echoes.push(await startEchoServer({ service: 'echo', instance: instanceOf(i), host: '127.0.0.1', port: 0 }));
  }
  nginx = await startLuaNginx();
  pidsAtStart = { master: nginx.masterPid, workers: nginx.workerPids() };
});

after(async () => {
  await nginx?.stop();
  await Promise.all(echoes.map((server) => server.close()));
});

const options = { timeout: TEST_TIMEOUT_MS, skip: missingLuaNginx };

test('before any push: not initialized, GET has nothing, every backend answers 503', options, async () => {
  assert.equal((await statusRequest(nginx.ports.status, 'GET', '/is-dynamic-lb-initialized')).status, 404);
  assert.equal((await statusRequest(nginx.ports.status, 'GET', '/configuration/backends')).status, 404);
  assert.equal(await statusOf('/'), 503);
});

test('a pushed backend receives the traffic of its location; GET returns the document', options, async () => {
  const backends = [{ name: DEFAULT_LOCATION_BACKEND, endpoints: [endpointOf(echo(0))] }];
  const pushed = await pushBackends(nginx.ports.status, backends);
  assert.equal(pushed.status, 201, pushed.body);

  const result = await httpGet({ port: nginx.ports.http, path: '/some/path?q=1' });
  assert.equal(result.status, 200);
  assert.equal(echoed(result).instance, instanceOf(0));
  assert.equal(echoed(result).path, '/some/path');

  assert.equal((await statusRequest(nginx.ports.status, 'GET', '/is-dynamic-lb-initialized')).status, 200);
  const stored = await statusRequest(nginx.ports.status, 'GET', '/configuration/backends');
  assert.equal(stored.status, 200);
  assert.deepEqual(JSON.parse(stored.body), { backends });
});

test('round robin over 3 endpoints spreads 300 requests evenly across both workers', options, async (t) => {
  const pushed = await pushBackends(nginx.ports.status, [
    { name: 'rr', endpoints: [endpointOf(echo(0)), endpointOf(echo(1)), endpointOf(echo(2))], loadBalance: 'round_robin' },
  ]);
  assert.equal(pushed.status, 201, pushed.body);
  const hits = await spread('/to/rr/', 300);
  t.diagnostic(`300 requests: ${[...hits].sort().map(([instance, count]) => `${instance} ${count}`).join(', ')}`);
  assert.deepEqual([...hits.keys()].sort(), [instanceOf(0), instanceOf(1), instanceOf(2)]);
  for (const [instance, count] of hits) assert.ok(Math.abs(count - 100) <= 10, `${instance}: ${count} of 300`);
});

test('endpoint changes apply live: no reload, the new endpoint gets traffic, the removed one none', options, async () => {
  const pushed = await pushBackends(nginx.ports.status, [
    { name: 'rr', endpoints: [endpointOf(echo(1)), endpointOf(echo(2)), endpointOf(echo(3))] },
  ]);
  assert.equal(pushed.status, 201, pushed.body);
  // The very next request of each worker already uses the new endpoints.
  const hits = await spread('/to/rr/', 60);
  assert.equal(hits.get(instanceOf(0)), undefined, 'the removed endpoint gets nothing');
  assert.ok((hits.get(instanceOf(3)) ?? 0) >= 15, `the new endpoint gets its share: ${JSON.stringify([...hits])}`);
  assert.equal(nginx.masterPid, pidsAtStart.master);
  assert.deepEqual(nginx.workerPids(), pidsAtStart.workers, 'the same workers: nginx did not reload');
});

test('each endpoint change starts the round robin at a random endpoint', options, async () => {
  const firsts = new Set<string>();
  const forward = [endpointOf(echo(0)), endpointOf(echo(1)), endpointOf(echo(2))];
  for (let round = 0; round < 10; round++) {
    // A different order is a different endpoint list: each worker re-syncs its balancer.
    const pushed = await pushBackends(nginx.ports.status, [{ name: 'rr', endpoints: round % 2 === 0 ? forward : [...forward].reverse() }]);
    assert.equal(pushed.status, 201, pushed.body);
    const [first] = (await spread('/to/rr/', 1)).keys();
    if (first !== undefined) firsts.add(first);
  }
  // All 10 the same by chance: (1/3)^9.
  assert.ok(firsts.size >= 2, `first endpoints after 10 changes: ${[...firsts].join(', ')}`);
});

test('a backend without endpoints and an unknown backend answer 503', options, async () => {
  const pushed = await pushBackends(nginx.ports.status, [
    { name: 'empty', endpoints: [] },
    { name: 'rr', endpoints: [endpointOf(echo(0))] },
  ]);
  assert.equal(pushed.status, 201, pushed.body);
  for (const path of ['/to/empty/', '/to/not-pushed/']) {
    // The balancer phase cannot answer 503 itself: the no-endpoints server does.
    const answer = await httpGet({ port: nginx.ports.http, path });
    assert.equal(answer.status, 503, path);
    assert.match(String(answer.headers['x-upstream-addr']), /^unix:.*\/run\/no-endpoints\.sock$/, path);
    // With the rewrite hook (TLS and gRPC upstreams), Lua answers before any upstream.
    const early = await httpGet({ port: nginx.ports.http, path: path.replace('/to/', '/rewrite-hook/') });
    assert.equal(early.status, 503, path);
    assert.equal(early.headers['x-upstream-addr'], undefined, path);
  }
  assert.equal(await statusOf('/to/rr/'), 200);
  assert.deepEqual([...(await spread('/rewrite-hook/rr/', 4))], [[instanceOf(0), 4]]);
  // A backend that disappears from the document disappears from routing.
  assert.equal(await statusOf('/'), 503);
});

test('a push between the rewrite hook and the balancer leaves the request the endpoints the hook saw', options, async () => {
  // TLS and gRPC upstreams: the no-endpoints server speaks plain HTTP, so sending the request there would be a 502.
  const pushed = await pushBackends(nginx.ports.status, [{ name: 'rr', endpoints: [endpointOf(echo(1))] }]);
  assert.equal(pushed.status, 201, pushed.body);
  const raced = await httpGet({ port: nginx.ports.http, path: '/rewrite-race/rr/' });
  assert.equal(raced.status, 200, raced.body.slice(0, 200));
  assert.equal(echoed(raced).instance, instanceOf(1));
  // The push in between did land: the next request finds no backend.
  const after = await httpGet({ port: nginx.ports.http, path: '/to/rr/' });
  assert.equal(after.status, 503);
  assert.match(String(after.headers['x-upstream-addr']), /no-endpoints\.sock$/);
});

test('a retry whose backend a push took away gets the no-endpoints 503, not a 500', options, async () => {
  // The first attempt goes to the endpoint the rewrite hook saw, which refuses; by the retry the backend is gone.
  const dead = { address: '127.0.0.1', port: await refusingLoopbackPort() };
  const pushed = await pushBackends(nginx.ports.status, [{ name: 'rr', endpoints: [dead] }]);
  assert.equal(pushed.status, 201, pushed.body);
  const raced = await httpGet({ port: nginx.ports.http, path: '/rewrite-race/rr/' });
  assert.equal(raced.status, 503, raced.body.slice(0, 200));
  assert.match(String(raced.headers['x-upstream-addr']), new RegExp(`^127\\.0\\.0\\.1:${dead.port}, unix:.*no-endpoints\\.sock$`));
});

test('an invalid push is refused with 400 and the previous backends keep routing', options, async () => {
  const pushed = await pushBackends(nginx.ports.status, [{ name: 'rr', endpoints: [endpointOf(echo(4))] }]);
  assert.equal(pushed.status, 201, pushed.body);
  const before = await statusRequest(nginx.ports.status, 'GET', '/configuration/backends');

  const refusals: [string, RegExp][] = [
    ['{"backends": [', /invalid backends: not JSON/],
    ['[{"name": "rr", "endpoints": []}]', /"backends" array/],
    ['{"backends": {"name": "rr"}}', /"backends" array/],
    ['{"backends": [{"name": "rr", "endpoints": [{"address": "127.0.0.1", "port": 0}]}]}', /backends\[0\]\.endpoints\[0\]\.port/],
    ['{"backends": [{"name": "rr"}, {"name": "rr"}]}', /backends\[1\]\.name rr is not unique/],
    ['{"backends": [{"endpoints": []}]}', /backends\[0\]\.name/],
  ];
  for (const [body, message] of refusals) {
    const refused = await statusRequest(nginx.ports.status, 'POST', '/configuration/backends', body);
    assert.equal(refused.status, 400, body);
    assert.match(refused.body, message);
  }
  assert.equal((await statusRequest(nginx.ports.status, 'PUT', '/configuration/backends', '{}')).status, 405);
  assert.equal((await statusRequest(nginx.ports.status, 'POST', '/configuration/backends')).status, 400, 'no body');

  assert.deepEqual(await statusRequest(nginx.ports.status, 'GET', '/configuration/backends'), before);
  assert.deepEqual([...(await spread('/to/rr/', 10))], [[instanceOf(4), 10]]);
});

test('a peer at the status port on loopback is refused; other endpoints of the backend still serve', options, async () => {
  const statusPeer = { address: '127.0.0.1', port: nginx.ports.status };
  const pushed = await pushBackends(nginx.ports.status, [
    { name: 'self', endpoints: [statusPeer] },
    { name: 'self-v6', endpoints: [{ address: '::1', port: nginx.ports.status }, { address: '127.3.2.1', port: nginx.ports.status }] },
    { name: 'mixed', endpoints: [statusPeer, endpointOf(echo(2))] },
  ]);
  assert.equal(pushed.status, 201, pushed.body);
  assert.equal(await statusOf('/to/self/configuration/backends'), 503);
  assert.equal(await statusOf('/to/self-v6/configuration/backends'), 503);
  assert.deepEqual([...(await spread('/to/mixed/', 20))], [[instanceOf(2), 20]]);
  const refusals = nginx.errorLog().split('\n').filter((line) => line.includes('refusing endpoint'));
  for (const peer of [`127.0.0.1:${nginx.ports.status}`, `::1:${nginx.ports.status}`, `127.3.2.1:${nginx.ports.status}`]) {
    assert.ok(refusals.some((line) => line.includes(`refusing endpoint ${peer}`)), `${peer} refused in the error log`);
  }
});

// Every spelling that connects to this machine (security review, issue 12): the status server and the proxy's own port.
const SELF_SPELLINGS = ['0.0.0.0', '0', '127.1', '2130706433', '0x7f.1', '::', '[::1]', '::ffff:127.0.0.1', '::ffff:7f00:1',
  '0:0:0:0:0:ffff:7f00:1', '::FFFF:7F00:1', '::ffff:0.0.0.0', '::127.0.0.1', 'localhost'];

test('self peers in any spelling, at the status port or the proxy\'s own port, are refused; the others still serve', options, async () => {
  const selfPorts = [nginx.ports.status, nginx.ports.http];
  const hostile = SELF_SPELLINGS.flatMap((address, i) => selfPorts.map((port, j) => ({ name: `self-${i}-${j}`, endpoints: [{ address, port }] })));
  const pushed = await pushBackends(nginx.ports.status, [...hostile, { name: 'tenant', endpoints: [endpointOf(echo(3))] }]);
  assert.equal(pushed.status, 201, pushed.body);
  const before = nginx.errorLog().length;
  for (const { name, endpoints } of hostile) {
    const result = await httpGet({ port: nginx.ports.http, path: `/to/${name}/configuration/backends` });
    assert.equal(result.status, 503, `${endpoints[0]!.address}:${endpoints[0]!.port}: ${result.body.slice(0, 200)}`);
    assert.doesNotMatch(result.body, /"backends"|PRIVATE KEY/);
  }
  assert.deepEqual([...(await spread('/to/tenant/', 10))], [[instanceOf(3), 10]]);
  // Each request was answered by the no-endpoints server: none was proxied back into this nginx (a loop).
  assert.doesNotMatch(nginx.errorLog().slice(before), /upstream prematurely|worker_connections are not enough/);
});

test('a refused connection is retried on another endpoint; all endpoints down is a bounded 502', options, async () => {
  const [closedPort = 0, otherClosedPort = 0] = await freeLoopbackPorts(2);
  const pushed = await pushBackends(nginx.ports.status, [
    { name: 'half-down', endpoints: [{ address: '127.0.0.1', port: closedPort }, endpointOf(echo(3))] },
    { name: 'down', endpoints: [{ address: '127.0.0.1', port: closedPort }, { address: '127.0.0.1', port: otherClosedPort }] },
  ]);
  assert.equal(pushed.status, 201, pushed.body);
  assert.deepEqual([...(await spread('/to/half-down/', 20))], [[instanceOf(3), 20]]);
  assert.match(nginx.errorLog(), new RegExp(`Connection refused.*upstream: "http://127\\.0\\.0\\.1:${closedPort}/`), 'some first attempts went to the closed port');
  const startedAt = Date.now();
  assert.equal(await statusOf('/to/down/'), 502);
  assert.ok(Date.now() - startedAt < 3000, 'proxy_next_upstream_tries bounds the retries');
  // proxy_next_upstream_tries 0 (unlimited): the balancer stops granting tries on its own.
  const unlimitedStartedAt = Date.now();
  assert.equal(await statusOf('/unlimited-retries/down/'), 502);
  assert.ok(Date.now() - unlimitedStartedAt < 3000, 'the balancer bounds unlimited retries');
  assert.equal(await statusOf('/unlimited-retries/half-down/'), 200);
});

test('a push buffered to a file (larger than client_body_buffer_size) is read from it', options, async () => {
  const padding = Array.from({ length: 3000 }, (_, i) => ({ name: `padding-${i}`, endpoints: [{ address: '198.18.0.1', port: 8080 + (i % 100) }] }));
  const body = JSON.stringify({ backends: [{ name: 'rr', endpoints: [endpointOf(echo(1))] }, ...padding] });
  assert.ok(body.length > 64 * 1024);
  const pushed = await statusRequest(nginx.ports.status, 'POST', '/configuration/backends', body);
  assert.equal(pushed.status, 201, pushed.body);
  assert.match(nginx.errorLog(), /a client request body is buffered to a temporary file/);
  assert.deepEqual([...(await spread('/to/rr/', 4))], [[instanceOf(1), 4]]);
});

test('a push the shared dict cannot hold answers 500 and leaves the stored backends as they were', options, async () => {
  // The 16m dict holds one 9 MB document, not two: a push needs room for the new copy beside the live one.
  const padded = (instance: number): string =>
    JSON.stringify({ backends: [{ name: 'rr', endpoints: [endpointOf(echo(instance))] }], padding: 'x'.repeat(9 * 1024 * 1024) });
  const first = await statusRequest(nginx.ports.status, 'POST', '/configuration/backends', padded(0));
  assert.equal(first.status, 201, first.body);
  const overflow = await statusRequest(nginx.ports.status, 'POST', '/configuration/backends', padded(1));
  assert.equal(overflow.status, 500);
  assert.match(overflow.body, /no memory/);
  assert.deepEqual([...(await spread('/to/rr/', 4))], [[instanceOf(0), 4]]);
  const stored = await statusRequest(nginx.ports.status, 'GET', '/configuration/backends');
  assert.equal(stored.body, padded(0));

  // Nothing leaked: a small push fits again and routes.
  const small = await pushBackends(nginx.ports.status, [{ name: 'rr', endpoints: [endpointOf(echo(2))] }]);
  assert.equal(small.status, 201, small.body);
  assert.deepEqual([...(await spread('/to/rr/', 4))], [[instanceOf(2), 4]]);
});

test('concurrent pushes are serialized: the stored document is one of them, whole, and routes', options, async () => {
  const documents = [0, 1, 2, 3].map((instance) => [{ name: 'rr', endpoints: [endpointOf(echo(instance))] }]);
  const results = await Promise.all(documents.map((backends) => pushBackends(nginx.ports.status, backends)));
  for (const result of results) assert.equal(result.status, 201, result.body);
  const versions = results.map((result) => Number(/version (\d+)/.exec(result.body)?.[1]));
  assert.equal(new Set(versions).size, 4, `each push got its own version: ${versions.join(', ')}`);
  const winner = versions.indexOf(Math.max(...versions)); // document i routes to echo i
  const stored = await statusRequest(nginx.ports.status, 'GET', '/configuration/backends');
  assert.deepEqual(JSON.parse(stored.body), { backends: documents[winner] });
  assert.deepEqual([...(await spread('/to/rr/', 4))], [[instanceOf(winner), 4]]);
});

test('no Lua errors or global writes were logged; nginx never reloaded', options, async () => {
  assert.deepEqual(luaProblems(nginx.errorLog()), []);
  await eventually(() => assert.deepEqual(nginx.workerPids(), pidsAtStart.workers), { timeoutMs: 1000 });
});

test('a reload keeps the pushed backends: the shared dict outlives the workers', options, async () => {
  const workersBefore = nginx.workerPids();
  process.kill(nginx.masterPid, 'SIGHUP');
  await eventually(() => {
    const workers = nginx.workerPids();
    assert.equal(workers.length, 2);
    assert.ok(workers.every((pid) => !workersBefore.includes(pid)), 'only new workers');
  }, { timeoutMs: 10_000 });
  assert.equal((await statusRequest(nginx.ports.status, 'GET', '/is-dynamic-lb-initialized')).status, 200);
  assert.equal((await spread('/to/rr/', 6)).size, 1);
  assert.deepEqual(luaProblems(nginx.errorLog()), []);
});
