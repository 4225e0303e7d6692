// scripts/run.sh, the demo command, stopped the ways a person or a process
// manager stops it: every process it started (the demo backends, Portico,
// nginx's master and workers) is gone when the script returns, and the script
// returns 0 after a clean stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childPids, isAlive } from '../dataplane/nginx/nginxTestSupport.js';
import { spawnGuarded } from '../support/childProcess.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { httpGet } from '../support/httpGet.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** `pid` and every process below it, as the tree stands now. */
function processTree(pid: number): number[] {
  return [pid, ...childPids(pid).flatMap(processTree)];
}

async function commandLine(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ').trim();
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  test(`run.sh stopped with ${signal} leaves no process it started, and exits 0`, { timeout: 180_000 }, async () => {
    const [http = 0, https = 0, defaultServer = 0, status = 0, healthz = 0, hello = 0, api = 0] = await freeLoopbackPorts(7);
    const dir = await mkdtemp(join(tmpdir(), 'portico-run-'));
    await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
    try {
      // The demo's manifests, routed to this test's backend ports.
      const demo = await readFile(join(repoRoot, 'examples', 'demo.yaml'), 'utf8');
      await writeFile(join(dir, 'demo.yaml'), demo.replaceAll('port: 18081', `port: ${hello}`).replaceAll('port: 18082', `port: ${api}`));
      const script = await spawnGuarded(
        'run.sh',
        'bash',
        [
          join(repoRoot, 'scripts', 'run.sh'),
          `--manifests=${dir}`,
          `--http-port=${http}`,
          `--https-port=${https}`,
          `--default-server-port=${defaultServer}`,
          `--status-port=${status}`,
          `--healthz-port=${healthz}`,
          '--healthz-host=127.0.0.1',
          `--nginx-prefix=${join(dir, 'nginx')}`,
        ],
        join(dir, 'run.log'),
        // No coverage of what it starts (dist/, demo backends): Node 20's runner fails on Portico's and then reports none.
        { PORTICO_DEMO_HELLO_PORT: String(hello), PORTICO_DEMO_API_PORT: String(api), NODE_V8_COVERAGE: '' },
      );
      try {
        // Up: Portico healthy and routing to both demo backends.
        await eventually(
          async () => {
            assert.equal((await httpGet({ port: healthz, path: '/healthz' })).status, 200);
            assert.equal((await httpGet({ port: http, host: 'hello.localhost', path: '/' })).status, 200);
            assert.equal((await httpGet({ port: http, host: 'hello.localhost', path: '/api/users' })).status, 200);
          },
          { timeoutMs: 120_000, intervalMs: 200, hopeless: () => script.hasExited() },
        );
        const started = processTree(script.pid);
        const names = await Promise.all(started.map(commandLine));
        assert.ok(
          names.some((name) => name.includes('bin/portico.js')),
          `Portico runs under the script: ${names.join(' | ')}`,
        );
        assert.ok(
          names.some((name) => name.includes('nginx: master process')),
          'nginx runs under it',
        );
        assert.equal(names.filter((name) => name.includes('echoServer.ts')).length, 2, 'both demo backends run under it');

        process.kill(script.pid, signal);
        const exit = await eventually(
          () => {
            assert.ok(script.hasExited(), 'the script has returned');
            return script.exited;
          },
          { timeoutMs: 60_000, intervalMs: 50 },
        );
        assert.deepEqual(exit, { code: 0, signal: null }, script.logTail(20));
        const left = started.filter(isAlive);
        assert.deepEqual(left, [], `still running after the script returned: ${(await Promise.all(left.map(commandLine))).join(' | ')}`);
        for (const port of [http, healthz, hello, api]) {
          await assert.rejects(httpGet({ port, path: '/' }), /ECONNREFUSED/, `port ${port} is closed`);
        }
      } finally {
        await script.stop(60_000);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
