// --profiling, --profiler-address, --profiler-port on the `portico` process:
// a CPU profile of the running controller at /debug/pprof/profile, on loopback;
// nothing listening with --profiling=false.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freeLoopbackPorts } from '../support/freePort.js';
import { httpGet } from '../support/httpGet.js';
import { startPortico, type PorticoProcess } from '../support/porticoProcess.js';

let manifestDir: string;
const started: PorticoProcess[] = [];

before(async () => {
  manifestDir = await mkdtemp(join(tmpdir(), 'portico-e2e-profiling-'));
});
after(async () => {
  await Promise.all(started.map((portico) => portico.stop()));
  await rm(manifestDir, { recursive: true, force: true });
});

async function portico(args: readonly string[]): Promise<PorticoProcess> {
  const process = await startPortico([`--manifests=${manifestDir}`, ...args]);
  started.push(process);
  return process;
}

test('the controller serves a CPU profile of itself on the profiler port, at 127.0.0.1 by default', async () => {
  const [port = 0] = await freeLoopbackPorts(1);
  const running = await portico([`--profiler-port=${port}`]);
  const result = await httpGet({ port, path: '/debug/pprof/profile?seconds=1', timeoutMs: 30_000 });
  assert.equal(result.status, 200, result.body);
  const profile = JSON.parse(result.body) as { nodes: unknown[]; startTime: number; endTime: number };
  assert.ok(profile.nodes.length > 0);
  assert.ok(profile.endTime - profile.startTime >= 1_000_000);
  const line = running
    .logTail(200)
    .split('\n')
    .find((text) => text.includes('profiling endpoint listening'));
  assert.ok(line?.includes('"host":"127.0.0.1"'), line);
});

test('--profiling=false opens no profiling port', async () => {
  const [port = 0] = await freeLoopbackPorts(1);
  await portico(['--profiling=false', `--profiler-port=${port}`]);
  await assert.rejects(httpGet({ port, path: '/debug/pprof/' }), /ECONNREFUSED/);
});
