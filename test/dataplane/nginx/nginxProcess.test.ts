import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { silentLogger } from '../../../src/log/logger.js';
import { NginxProcess, type ApplyResult, type NginxConfText, type NginxProcessOptions } from '../../../src/dataplane/nginx/nginxProcess.js';
import { prefixLayout } from '../../../src/dataplane/nginx/process/prefixLayout.js';
import { eventually } from '../../support/eventually.js';
import { freeLoopbackPorts } from '../../support/freePort.js';
import { untilRetired } from '../../support/nginxWorkers.js';
import {
  childPids,
  groupPids,
  httpGet,
  isAlive,
  minimalConfig,
  ownerUid,
  processUid,
  unixSocketGet,
  type TestServer,
} from './nginxTestSupport.js';

const TEST_TIMEOUT_MS = 30_000;
const waitFor = <T>(check: () => T | Promise<T>): Promise<T> => eventually(check, { timeoutMs: 10_000, intervalMs: 25 });

let prefix: string;
let port: number;
let nginx: NginxProcess | undefined;
const openServers: Server[] = [];

beforeEach(async () => {
  prefix = mkdtempSync(join(tmpdir(), 'portico-nginx-'));
  [port = 0] = await freeLoopbackPorts(1);
});

afterEach(async () => {
  await nginx?.stop();
  nginx = undefined;
  await Promise.all(openServers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(prefix, { recursive: true, force: true });
});

function config(servers: readonly TestServer[], extra?: string): string {
  return minimalConfig(prefixLayout(prefix), servers, extra);
}

async function started(text: NginxConfText, options: Partial<NginxProcessOptions> = {}): Promise<NginxProcess> {
  nginx = new NginxProcess({ prefix, logger: silentLogger(), ...options });
  await nginx.start(text);
  return nginx;
}

function masterPidOf(nginxProcess: NginxProcess): number {
  const pid = nginxProcess.masterPid;
  assert.ok(pid !== undefined, 'nginx should have a master');
  return pid;
}

/** apply(); after a reload, waits until the workers from before it take no new connection (they may answer for a while). */
async function applyAndRetire(nginxProcess: NginxProcess, text: NginxConfText): Promise<ApplyResult> {
  const before = childPids(masterPidOf(nginxProcess));
  const result = await nginxProcess.apply(text);
  if (result.outcome === 'reloaded') await untilRetired(prefix, before);
  return result;
}

/** Holds a loopback port the way another program would. */
async function occupiedPort(): Promise<number> {
  const server = createServer();
  openServers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

test(
  'start() serves the configuration from the prefix, with unprivileged workers owning the temp dirs',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const nginxProcess = await started(config([{ port, body: 'a' }]));
    assert.equal(nginxProcess.running, true);
    assert.deepEqual(await httpGet(port), { status: 200, body: 'a' });

    const layout = prefixLayout(prefix);
    assert.equal(readFileSync(layout.pidFile, 'utf8').trim(), String(masterPidOf(nginxProcess)));
    assert.equal(readFileSync(layout.configFile, 'utf8'), config([{ port, body: 'a' }]));
    const workers = childPids(masterPidOf(nginxProcess));
    assert.equal(workers.length, 1);
    const [worker = 0] = workers;
    if (process.getuid?.() === 0) {
      assert.notEqual(processUid(worker), 0, 'workers drop root');
      for (const dir of Object.values(layout.temp) as string[])
        assert.equal(ownerUid(dir), processUid(worker), `${dir} belongs to the worker user`);
    }
  },
);

test('apply() of the running text is unchanged; of a new text reloads, with new workers', { timeout: TEST_TIMEOUT_MS }, async () => {
  const nginxProcess = await started(config([{ port, body: 'a' }]));
  const master = masterPidOf(nginxProcess);
  const workers = childPids(master);

  assert.deepEqual(await nginxProcess.apply(config([{ port, body: 'a' }])), { outcome: 'unchanged' });
  assert.equal(nginxProcess.reloads, 0);

  assert.deepEqual(await applyAndRetire(nginxProcess, config([{ port, body: 'b' }])), { outcome: 'reloaded' });
  assert.equal(nginxProcess.reloads, 1);
  assert.deepEqual(await httpGet(port), { status: 200, body: 'b' });
  assert.equal(nginxProcess.masterPid, master, 'a reload keeps the master');
  await waitFor(() =>
    assert.ok(
      childPids(master).every((pid) => !workers.includes(pid)),
      'old workers retire',
    ),
  );
  assert.equal(readFileSync(prefixLayout(prefix).configFile, 'utf8'), config([{ port, body: 'b' }]));

  assert.deepEqual(await nginxProcess.apply(config([{ port, body: 'b' }])), { outcome: 'unchanged' });
  assert.equal(nginxProcess.reloads, 1);
});

test(
  'apply() compares the content: the running text as bytes is unchanged, one byte changed reloads',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const [a, b] = [config([{ port, body: 'a' }]), config([{ port, body: 'b' }])];
    assert.equal(a.length, b.length, 'the texts differ in one byte only');
    const nginxProcess = await started(Buffer.from(a));

    assert.deepEqual(await nginxProcess.apply(a), { outcome: 'unchanged' });
    assert.deepEqual(await nginxProcess.apply(Buffer.from(a)), { outcome: 'unchanged' });
    assert.deepEqual(await applyAndRetire(nginxProcess, Buffer.from(b)), { outcome: 'reloaded' });
    assert.deepEqual(await httpGet(port), { status: 200, body: 'b' });
    assert.deepEqual(await nginxProcess.apply(b), { outcome: 'unchanged' });
    assert.equal(nginxProcess.reloads, 1);
  },
);

test(
  'nginx keeps no reference to a text it was given once it runs it (13 MiB at 10,000 Ingresses)',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    // A full collection on demand (a fresh context's gc, once the flag is set).
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    let first: Buffer | undefined = Buffer.from(config([{ port, body: 'a' }]));
    let second: Buffer | undefined = Buffer.from(config([{ port, body: 'b' }]));
    const texts = [new WeakRef(first), new WeakRef(second)];
    const nginxProcess = await started(first);
    assert.deepEqual(await applyAndRetire(nginxProcess, second), { outcome: 'reloaded' });
    first = second = undefined;
    // WeakRefs are cleared after the turn that last read them, and by a collection after that.
    await nextTurn();
    collect();
    assert.deepEqual(
      texts.map((text) => text.deref() === undefined),
      [true, true],
    );
    assert.deepEqual(await nginxProcess.apply(config([{ port, body: 'b' }])), { outcome: 'unchanged' });
  },
);

test(
  'a master that dies after a refused configuration restarts with the last good one, known as running',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const good = config([{ port, body: 'b' }]);
    const nginxProcess = await started(config([{ port, body: 'a' }]), { restartBackoff: { initialMs: 50, maxMs: 200 } });
    assert.deepEqual(await applyAndRetire(nginxProcess, good), { outcome: 'reloaded' });
    assert.equal((await nginxProcess.apply(config([{ port, body: 'c' }], 'no_such_directive on;'))).outcome, 'rejected');
    const layout = prefixLayout(prefix);
    assert.equal(readFileSync(layout.configFile, 'utf8'), good);
    assert.equal(readFileSync(layout.lastGoodConfigFile, 'utf8'), good);

    process.kill(masterPidOf(nginxProcess), 'SIGKILL');
    await waitFor(() => assert.equal(nginxProcess.restarts, 1));
    assert.deepEqual(await httpGet(port), { status: 200, body: 'b' });
    assert.deepEqual(await nginxProcess.apply(good), { outcome: 'unchanged' });
    assert.equal(nginxProcess.reloads, 1);
  },
);

test(
  'a configuration nginx refuses is rejected with its message, kept aside, and the old one serves',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const good = config([{ port, body: 'a' }]);
    const nginxProcess = await started(good);
    const master = masterPidOf(nginxProcess);
    const broken = config([{ port, body: 'b' }], 'no_such_directive on;');

    const result = await nginxProcess.apply(broken);
    assert.equal(result.outcome, 'rejected');
    assert.ok(result.outcome === 'rejected');
    const layout = prefixLayout(prefix);
    assert.match(result.error, /unknown directive "no_such_directive"/);
    assert.ok(result.error.includes(layout.rejectedConfigFile), 'the message names the kept file');
    assert.equal(readFileSync(layout.rejectedConfigFile, 'utf8'), broken);
    assert.equal(readFileSync(layout.configFile, 'utf8'), good);
    assert.equal(nginxProcess.reloads, 0);
    assert.equal(nginxProcess.masterPid, master, 'the master survives the refused configuration');
    assert.deepEqual(await httpGet(port), { status: 200, body: 'a' });

    assert.deepEqual(await applyAndRetire(nginxProcess, config([{ port, body: 'c' }])), { outcome: 'reloaded' });
    assert.deepEqual(await httpGet(port), { status: 200, body: 'c' });
  },
);

test(
  'a configuration that parses but fails to load (port taken) is rejected and the old one serves',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const good = config([{ port, body: 'a' }]);
    const nginxProcess = await started(good);
    const master = masterPidOf(nginxProcess);
    const taken = await occupiedPort();
    const unloadable = config([
      { port, body: 'b' },
      { port: taken, body: 'taken' },
    ]);

    const result = await nginxProcess.apply(unloadable);
    assert.equal(result.outcome, 'rejected');
    assert.ok(result.outcome === 'rejected');
    assert.match(result.error, new RegExp(`\\[emerg\\] bind\\(\\) to 127\\.0\\.0\\.1:${taken} failed \\(98: Address already in use\\)`));
    assert.equal(nginxProcess.reloads, 0);
    assert.equal(nginxProcess.masterPid, master);
    assert.deepEqual(await httpGet(port), { status: 200, body: 'a' });
    const layout = prefixLayout(prefix);
    assert.equal(readFileSync(layout.configFile, 'utf8'), good, 'a restart would run the old configuration');
    assert.equal(readFileSync(layout.rejectedConfigFile, 'utf8'), unloadable);

    // Still not running, so not "unchanged".
    assert.equal((await nginxProcess.apply(unloadable)).outcome, 'rejected');
  },
);

test(
  'a reload not confirmed in time is reported, and the next apply() of that text is not taken as unchanged',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const good = config([{ port, body: 'a' }]);
    const nginxProcess = await started(good, { timeouts: { reloadMs: 1 } });
    const slow = config([{ port, body: 'b' }]);

    const result = await nginxProcess.apply(slow);
    assert.deepEqual(result, { outcome: 'rejected', error: 'nginx did not finish reloading within 1 ms' });
    assert.equal(readFileSync(prefixLayout(prefix).configFile, 'utf8'), good, 'a restart would run the confirmed configuration');
    // nginx may have gone on loading either file: what runs is unknown to Portico, so the same text is not "unchanged".
    assert.match((await httpGet(port)).body, /^[ab]$/);
    assert.equal((await nginxProcess.apply(slow)).outcome, 'rejected');
  },
);

test(
  'a master killed with SIGKILL is restarted with the last good configuration, its orphaned workers killed',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const nginxProcess = await started(config([{ port, body: 'a' }]), { restartBackoff: { initialMs: 50, maxMs: 200 } });
    assert.deepEqual(await applyAndRetire(nginxProcess, config([{ port, body: 'b' }])), { outcome: 'reloaded' });
    const oldMaster = masterPidOf(nginxProcess);
    const oldWorkers = childPids(oldMaster);

    process.kill(oldMaster, 'SIGKILL');

    await waitFor(() => assert.equal(nginxProcess.restarts, 1));
    const newMaster = masterPidOf(nginxProcess);
    assert.notEqual(newMaster, oldMaster);
    assert.deepEqual(await httpGet(port), { status: 200, body: 'b' });
    await waitFor(() => assert.deepEqual(oldWorkers.filter(isAlive), [], 'orphaned workers are gone'));
    // The killed master left its unix socket behind; the new one could bind it only after it was removed.
    assert.equal((await unixSocketGet(prefixLayout(prefix).noEndpointsSocket)).status, 503);

    assert.deepEqual(await applyAndRetire(nginxProcess, config([{ port, body: 'c' }])), { outcome: 'reloaded' });
    assert.deepEqual(await httpGet(port), { status: 200, body: 'c' });
  },
);

test('apply() while a dead master awaits its restart starts nginx with the new configuration', { timeout: TEST_TIMEOUT_MS }, async () => {
  const nginxProcess = await started(config([{ port, body: 'a' }]), { restartBackoff: { initialMs: 60_000, maxMs: 60_000 } });
  const master = masterPidOf(nginxProcess);
  process.kill(master, 'SIGKILL');
  await waitFor(() => assert.equal(nginxProcess.running, false));

  assert.deepEqual(await nginxProcess.apply(config([{ port, body: 'b' }])), { outcome: 'reloaded' });
  assert.equal(nginxProcess.running, true);
  assert.equal(nginxProcess.restarts, 1);
  assert.deepEqual(await httpGet(port), { status: 200, body: 'b' });
});

test('stop() leaves no nginx process behind', { timeout: TEST_TIMEOUT_MS }, async () => {
  const nginxProcess = await started(config([{ port, body: 'a' }]));
  const master = masterPidOf(nginxProcess);
  const workers = childPids(master);
  assert.equal(workers.length, 1);

  await nginxProcess.stop();
  assert.equal(nginxProcess.running, false);
  assert.equal(nginxProcess.masterPid, undefined);
  assert.equal(isAlive(master), false);
  await waitFor(() => assert.deepEqual(groupPids(master), []));
  assert.deepEqual(workers.filter(isAlive), []);
  await assert.rejects(httpGet(port), /ECONNREFUSED/);
  await assert.rejects(nginxProcess.apply(config([{ port, body: 'b' }])), /not started/);
});

test(
  'nginx dies with the process that started it, workers included, even when that process is SIGKILLed',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const fixture = fileURLToPath(new URL('./fixtures/runNginx.ts', import.meta.url));
    const portico = spawn(process.execPath, ['--import', 'tsx', fixture, prefix, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [firstLine] = (await once(createInterface({ input: portico.stdout }), 'line')) as [string];
      const master = Number(firstLine);
      assert.deepEqual(await httpGet(port), { status: 200, body: 'up' });
      const workers = childPids(master);
      assert.equal(workers.length, 1);

      portico.kill('SIGKILL');
      await waitFor(() => assert.deepEqual(groupPids(master), []));
      assert.deepEqual([master, ...workers].filter(isAlive), []);
    } finally {
      portico.kill('SIGKILL');
    }
  },
);

test('start() rejects a configuration nginx cannot run, and starts nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
  nginx = new NginxProcess({ prefix, logger: silentLogger() });
  await assert.rejects(nginx.start(config([{ port, body: 'a' }], 'no_such_directive on;')), /unknown directive "no_such_directive"/);
  assert.equal(nginx.running, false);

  const taken = await occupiedPort();
  await assert.rejects(nginx.start(config([{ port: taken, body: 'a' }])), /exited with code 1:\n\[emerg\] bind\(\) to .* failed/);
  assert.equal(nginx.running, false);
  await assert.rejects(nginx.apply(config([{ port, body: 'a' }])), /not started/);
});

test('the directives Portico passes on the command line cannot be rendered too', { timeout: TEST_TIMEOUT_MS }, async () => {
  nginx = new NginxProcess({ prefix, logger: silentLogger() });
  await assert.rejects(nginx.start(config([{ port, body: 'a' }], 'daemon on;')), /"daemon" directive is duplicate/);
  await assert.rejects(nginx.start(config([{ port, body: 'a' }], `pid ${join(prefix, 'other.pid')};`)), /"pid" directive is duplicate/);
});
