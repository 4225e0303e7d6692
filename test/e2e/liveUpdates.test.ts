// Endpoint and certificate changes reach nginx through Lua: traffic follows
// them while nginx.conf stays byte-identical and no worker is replaced (a
// reload would start new workers).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import {
  applyIngress,
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  setEndpoints,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { nginxMasterPid, nginxWorkers, whileStopped } from '../support/nginxWorkers.js';
import { applyTlsSecret } from '../support/tlsSecrets.js';

let cluster: E2eCluster;

before(async () => {
  cluster = await startE2eCluster('live');
});
after(() => cluster?.close());

/**
 * The running nginx.conf and the pids of the serving workers: what a reload would change.
 * Workers an earlier reload retired are left out: they may exit at any time.
 */
async function nginxState(): Promise<{ conf: string; workers: number[] }> {
  const prefix = cluster.portico.prefix;
  const serving = (await nginxWorkers(prefix)).filter((worker) => !worker.retiring).map((worker) => worker.pid);
  return { conf: await readFile(join(prefix, 'conf', 'nginx.conf'), 'utf8'), workers: serving.sort((a, b) => a - b) };
}

/**
 * No reload happened between two states: no worker started. (Workers of the reload before `before` may have
 * taken their quit signal since, so fewer may serve afterwards; a reload would have started new ones.)
 */
function assertNoNewWorkers(before: { workers: number[] }, afterwards: { workers: number[] }): void {
  const started = afterwards.workers.filter((pid) => !before.workers.includes(pid));
  assert.deepEqual(
    started,
    [],
    `no worker started, so no reload (before ${before.workers.join(' ')}, after ${afterwards.workers.join(' ')})`,
  );
  assert.ok(afterwards.workers.length > 0, 'workers serve');
}

/** The instances that answer `count` requests (bounded). */
async function instancesAnswering(host: string, count: number): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const result = await httpGet({ port: cluster.portico.ports.http, host, path: '/' });
    seen.add(result.status === 200 ? echoed(result).instance : String(result.status));
  }
  return seen;
}

test('scaling a backend from 1 to 10 endpoints and back changes traffic, not nginx.conf, and reloads nothing', async () => {
  const backends = await startBackends(cluster, 'scaled', 10);
  const first = backends[0];
  assert.ok(first);
  await createService(cluster, 'scaled', [first]);
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'scaled', { rules: [{ host: 'scaled.live.test', http: { paths: paths(['/', 'Prefix', 'scaled']) } }] }),
  );
  await eventually(async () => assert.deepEqual([...(await instancesAnswering('scaled.live.test', 3))], ['scaled-1']));
  const before = await nginxState();

  await setEndpoints(
    cluster,
    'scaled',
    backends.map((backend) => backend.address),
  );
  await eventually(async () => assert.equal((await instancesAnswering('scaled.live.test', 40)).size, 10), { timeoutMs: 20_000 });
  await setEndpoints(cluster, 'scaled', [first.address]);
  await eventually(async () => assert.deepEqual([...(await instancesAnswering('scaled.live.test', 20))], ['scaled-1']));
  await setEndpoints(cluster, 'scaled', []);
  await eventually(async () => assert.deepEqual([...(await instancesAnswering('scaled.live.test', 3))], ['503']));

  const afterwards = await nginxState();
  assert.equal(afterwards.conf, before.conf, 'nginx.conf is byte-identical');
  assertNoNewWorkers(before, afterwards);
});

test('a rotated certificate is served without a reload', async () => {
  const host = 'rotate.live.test';
  await createService(cluster, 'tls-app', await startBackends(cluster, 'tls-app'));
  const first = await applyTlsSecret(cluster, 'rotating', [host]);
  // A TLS host is served before its reload (its pending route): wait for the reload, so that none follows below.
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'rotating', {
      tls: [{ hosts: [host], secretName: 'rotating' }],
      rules: [{ host, http: { paths: paths(['/', 'Prefix', 'tls-app']) } }],
    }),
  );
  const fingerprint = async () => (await httpGet({ port: cluster.portico.ports.https, host, https: true })).certificate?.fingerprint256;
  await eventually(async () => {
    const result = await httpGet({ port: cluster.portico.ports.https, host, https: true });
    assert.equal(result.status === 200 ? echoed(result).service : result.status, 'tls-app');
    assert.equal(result.certificate?.fingerprint256, first.fingerprint256);
  });
  const before = await nginxState();
  const second = await applyTlsSecret(cluster, 'rotating', [host]);
  await eventually(async () => assert.equal(await fingerprint(), second.fingerprint256));
  const afterwards = await nginxState();
  assert.equal(afterwards.conf, before.conf, 'nginx.conf is byte-identical');
  assertNoNewWorkers(before, afterwards);
});

test('an Ingress created while a reload waits is served at once, and its own reload follows', async () => {
  await createService(cluster, 'held', await startBackends(cluster, 'held'));
  const rule = (host: string) => ({ rules: [{ host, http: { paths: paths(['/', 'Prefix', 'held']) } }] });
  await applyIngressAndReload(cluster, ingress(cluster, 'held-a', rule('held-a.live.test')));
  // A held master leaves the reload for held-b waiting.
  await whileStopped(await nginxMasterPid(cluster.portico.prefix), async () => {
    await applyIngress(cluster, ingress(cluster, 'held-b', rule('held-b.live.test')));
    await eventually(async () => assert.deepEqual([...(await instancesAnswering('held-b.live.test', 2))], ['held-1']));
    // The sync for held-c runs while held-b's reload still waits.
    await applyIngress(cluster, ingress(cluster, 'held-c', rule('held-c.live.test')));
    await eventually(async () => assert.deepEqual([...(await instancesAnswering('held-c.live.test', 2))], ['held-1']));
    const conf = await readFile(join(cluster.portico.prefix, 'conf', 'nginx.conf'), 'utf8');
    assert.ok(!conf.includes('held-c.live.test'), 'served before any nginx.conf names it');
  });
  await eventually(async () =>
    assert.match(await readFile(join(cluster.portico.prefix, 'conf', 'nginx.conf'), 'utf8'), /server_name "held-c\.live\.test";/),
  );
  // Until all answer in one pass: after the reloads, a worker of before them may still take a connection and,
  // the pending routes of held-b and held-c dropped, answer 404.
  await eventually(async () => {
    for (const host of ['held-a.live.test', 'held-b.live.test', 'held-c.live.test']) {
      assert.deepEqual([...(await instancesAnswering(host, 2))], ['held-1'], host);
    }
  });
});

test('after the nginx master dies, Portico restarts it and pushes the live state again before it is healthy', async () => {
  await createService(cluster, 'survivor', await startBackends(cluster, 'survivor'));
  // Killed after the reload that adds the host, not during it.
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'survivor', { rules: [{ host: 'survivor.live.test', http: { paths: paths(['/', 'Prefix', 'survivor']) } }] }),
  );
  await eventually(async () => assert.deepEqual([...(await instancesAnswering('survivor.live.test', 2))], ['survivor-1']));
  const master = await nginxMasterPid(cluster.portico.prefix);
  process.kill(master, 'SIGKILL');
  // Until Portico sees the exit, the orphaned workers still answer and the pid file still names the dead master.
  const restarted = await eventually(
    async () => {
      const pid = await nginxMasterPid(cluster.portico.prefix);
      assert.notEqual(pid, master, 'a new master');
      return pid;
    },
    { timeoutMs: 20_000 },
  );
  // A fresh master has empty shared memory: without the re-push every backend would answer 503.
  await eventually(async () => assert.deepEqual([...(await instancesAnswering('survivor.live.test', 2))], ['survivor-1']), {
    timeoutMs: 20_000,
  });
  // Healthy again once the restart has pushed every live document, which can be a moment after the backends answer.
  await eventually(async () => assert.equal((await httpGet({ port: cluster.portico.ports.healthz, path: '/healthz' })).status, 200), {
    timeoutMs: 20_000,
  });
  assert.equal(await nginxMasterPid(cluster.portico.prefix), restarted, 'the restarted master still runs');
});
