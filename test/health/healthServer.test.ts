// The health endpoint through real sockets: answered from the last check,
// /metrics from the main thread's registry, and answered while the main
// thread is held by a long synchronous step (a sync of thousands of Ingresses).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry, Counter } from 'prom-client';
import { startHealthServer, type HealthServer } from '../../src/health/healthServer.js';
import { silentLogger } from '../../src/log/logger.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { httpGet } from '../support/httpGet.js';

let dir: string;
let port: number;
let server: HealthServer;
let healthy = true;
const registry = new Registry();
new Counter({ name: 'portico_test_total', help: 'a counter of the test', registers: [registry] }).inc(3);

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portico-health-'));
  [port] = (await freeLoopbackPorts(1)) as [number];
  server = await startHealthServer({
    host: '127.0.0.1',
    port,
    path: '/healthz',
    check: async () => healthy,
    logger: silentLogger(),
    metrics: registry,
  });
});
after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('/healthz is the last check: 200 while it passes, 500 once a refresh finds it failing', async () => {
  assert.equal((await httpGet({ port, path: '/healthz' })).status, 200);
  healthy = false;
  await server.refresh();
  const failing = await httpGet({ port, path: '/healthz' });
  assert.equal(failing.status, 500);
  assert.equal(failing.body, 'unhealthy');
  healthy = true;
  await server.refresh();
  assert.equal((await httpGet({ port, path: '/healthz' })).status, 200);
});

test('/metrics is the main thread registry; any other path is 404', async () => {
  const metrics = await httpGet({ port, path: '/metrics' });
  assert.equal(metrics.status, 200);
  assert.match(metrics.body, /^portico_test_total 3$/m);
  assert.equal((await httpGet({ port, path: '/other' })).status, 404);
});

test('/healthz answers while the main thread is held (the probe of a kubelet during a long sync)', () => {
  const result = join(dir, 'probe-result');
  // A probe in another process; it writes its answer, or its timeout, into a file.
  const probe = `
    const fs = require('node:fs');
    const request = require('node:http').get('http://127.0.0.1:${port}/healthz', (response) => {
      fs.writeFileSync(${JSON.stringify(result)}, String(response.statusCode));
      response.resume();
    });
    request.on('error', (error) => fs.writeFileSync(${JSON.stringify(result)}, 'error ' + error.message));
    request.setTimeout(20000, () => { fs.writeFileSync(${JSON.stringify(result)}, 'timed out'); request.destroy(); });`;
  spawn(process.execPath, ['-e', probe], { stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '', NODE_V8_COVERAGE: '' } });
  // Held synchronously (no event loop turn) until the probe wrote its result, at most 30 s.
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + 30_000;
  while (!existsSync(result) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 10);
  assert.ok(existsSync(result), 'the probe wrote no result within 30 s');
  assert.equal(readFileSync(result, 'utf8'), '200');
});

test('a port already in use fails the start', async () => {
  await assert.rejects(
    startHealthServer({ host: '127.0.0.1', port, path: '/healthz', check: async () => true, logger: silentLogger() }),
    /health endpoint on port \d+: .*EADDRINUSE/,
  );
});
