// The profiling endpoint: a CPU profile of the requested length taken in the
// process, bounds on the length, one profile at a time, no heap snapshot, and a
// taken port that leaves the caller running.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/log/logger.js';
import { MAX_PROFILE_SECONDS, PROFILE_PATH, profileSeconds, startProfilerServer } from '../../src/profiling/profilerServer.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { httpGet } from '../support/httpGet.js';

describe('profile length', () => {
  it('is 30 s when not given, as pprof, and whole seconds from 1 to the maximum otherwise', () => {
    assert.equal(profileSeconds(null), 30);
    assert.equal(profileSeconds(''), 30);
    assert.equal(profileSeconds('1'), 1);
    assert.equal(profileSeconds(String(MAX_PROFILE_SECONDS)), MAX_PROFILE_SECONDS);
    for (const bad of ['0', String(MAX_PROFILE_SECONDS + 1), '-1', '1.5', '1e2', '99999', ' 5', '5s', '0x10']) {
      assert.equal(profileSeconds(bad), undefined, bad);
    }
  });
});

describe('profiling endpoint', () => {
  let server: Server | undefined;
  let port: number;

  before(async () => {
    [port = 0] = await freeLoopbackPorts(1);
    server = await startProfilerServer({ host: '127.0.0.1', port, logger: silentLogger() });
    assert.ok(server);
  });
  after(() => server?.close());

  it('returns a V8 CPU profile covering the requested seconds', async () => {
    const started = performance.now();
    const result = await httpGet({ port, path: `${PROFILE_PATH}?seconds=1`, timeoutMs: 20_000 });
    assert.equal(result.status, 200, result.body);
    assert.ok(performance.now() - started >= 1000);
    assert.match(String(result.headers['content-disposition']), /portico\.cpuprofile/);
    const profile = JSON.parse(result.body) as { nodes: { callFrame: { functionName: string } }[]; startTime: number; endTime: number };
    assert.ok(profile.nodes.length > 0);
    // Microseconds.
    assert.ok(profile.endTime - profile.startTime >= 1_000_000, `${profile.endTime - profile.startTime}`);
    assert.ok(profile.nodes.some((node) => node.callFrame.functionName === '(root)'));
  });

  it('takes one profile at a time', async () => {
    const first = httpGet({ port, path: `${PROFILE_PATH}?seconds=2`, timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 300)); // the first request reaches the server before the second
    const second = await httpGet({ port, path: `${PROFILE_PATH}?seconds=1`, timeoutMs: 20_000 });
    assert.equal(second.status, 409);
    assert.equal((await first).status, 200);
  });

  it('refuses an out-of-bounds length, other methods, and has no heap snapshot', async () => {
    assert.equal((await httpGet({ port, path: `${PROFILE_PATH}?seconds=0` })).status, 400);
    assert.equal((await httpGet({ port, path: `${PROFILE_PATH}?seconds=${MAX_PROFILE_SECONDS + 1}` })).status, 400);
    assert.equal((await httpGet({ port, path: PROFILE_PATH, method: 'POST' })).status, 405);
    assert.equal((await httpGet({ port, path: '/debug/pprof/heap' })).status, 404);
    assert.match((await httpGet({ port, path: '/debug/pprof/' })).body, /\/debug\/pprof\/profile\?seconds=N/);
  });

  it('gives up quietly when its port is taken, so the controller runs on', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const address = taken.address();
    assert.ok(address !== null && typeof address === 'object');
    try {
      assert.equal(await startProfilerServer({ host: '127.0.0.1', port: address.port, logger: silentLogger() }), undefined);
    } finally {
      taken.close();
    }
  });
});
