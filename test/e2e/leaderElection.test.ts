// Three Portico replicas against one API server: exactly one holds the Lease
// and it alone writes Ingress status; kill -9 of the leader hands the Lease to
// another once it expires; a graceful stop releases it at once; every live
// replica serves traffic throughout.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoordinationV1Api, KubeConfig, PatchStrategy, setHeaderOptions, type V1Lease } from '@kubernetes/client-node';
import { sharedControlPlane } from '../support/controlPlane.js';
import {
  applyIngress,
  changeAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { startPortico, type PorticoProcess } from '../support/porticoProcess.js';

const TTL_MS = 4000;
const RETRY_MS = TTL_MS / 4;
const HOST = 'election.test';
const STATUS_ADDRESS = '192.0.2.44';
const electionId = `portico-election-${randomUUID().slice(0, 8)}`;
// The Lease lives in the controller's namespace, where deploy/rbac.yaml lets it write Leases.
const env = { POD_NAMESPACE: 'portico' };

let cluster: E2eCluster;
let replicas: PorticoProcess[] = [];
let leases: CoordinationV1Api;

before(async () => {
  cluster = await startE2eCluster(
    'election',
    [
      `--election-id=${electionId}`,
      `--election-ttl=${TTL_MS / 1000}s`,
      `--publish-status-address=${STATUS_ADDRESS}`,
      '--status-update-interval=1',
      // Without POD_NAME a replica cannot see its siblings; keep the status when one stops.
      '--update-status-on-shutdown=false',
    ],
    { env },
  );
  replicas = [cluster.portico];
  for (let i = 0; i < 2; i++) replicas.push(await startPortico(cluster.porticoArgs, { env }));
  await createService(cluster, 'app', await startBackends(cluster, 'app'));
  // Every replica's reload and old workers' retirement: after the first answers, the survivors must serve every request.
  await changeAndReload(replicas, 'applying app', () =>
    applyIngress(cluster, ingress(cluster, 'app', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'app']) } }] })),
  );
  const admin = new KubeConfig();
  admin.loadFromFile((await sharedControlPlane()).adminKubeconfig);
  leases = admin.makeApiClient(CoordinationV1Api);
});
after(async () => {
  for (const replica of replicas.slice(1)) await replica.stop();
  await cluster?.close();
});

interface LogLine {
  msg?: string;
  identity?: string;
}

async function logLines(replica: PorticoProcess): Promise<LogLine[]> {
  const text = await readFile(replica.process.logPath, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

async function logged(replica: PorticoProcess, message: string): Promise<number> {
  return (await logLines(replica)).filter((line) => line.msg === message).length;
}

async function identityOf(replica: PorticoProcess): Promise<string> {
  const line = (await logLines(replica)).find((l) => l.msg === 'campaigning for leadership');
  assert.ok(line?.identity, 'the replica logged its identity');
  return line.identity;
}

async function lease(): Promise<V1Lease> {
  return leases.readNamespacedLease({ namespace: 'portico', name: electionId });
}

/** The replica holding the Lease, once exactly one replica has logged that it leads and it is the holder. */
async function soleLeader(candidates: readonly PorticoProcess[]): Promise<PorticoProcess> {
  const holder = (await lease()).spec?.holderIdentity;
  const leading: PorticoProcess[] = [];
  for (const replica of candidates) if ((await logged(replica, 'started leading')) > 0) leading.push(replica);
  assert.equal(leading.length, 1, `exactly one of ${candidates.length} replicas leads`);
  const [leader] = leading as [PorticoProcess];
  assert.equal(holder, await identityOf(leader), 'the Lease names the replica that logged it leads');
  return leader;
}

async function serves(replica: PorticoProcess): Promise<boolean> {
  const response = await httpGet({ port: replica.ports.http, host: HOST, path: '/', timeoutMs: 2000 }).catch(() => undefined);
  return response?.status === 200 && echoed(response).service === 'app';
}

async function ingressStatus(): Promise<unknown> {
  const current = await cluster.networking.readNamespacedIngress({ namespace: cluster.namespace, name: 'app' });
  return (current.status?.loadBalancer?.ingress ?? []).map(({ ip, hostname }) => ({ ip, hostname }));
}

describe('leader election among three replicas', () => {
  let leader: PorticoProcess;

  test('exactly one replica leads, and it alone writes the Ingress status', async () => {
    leader = await eventually(() => soleLeader(replicas), { timeoutMs: 15_000, intervalMs: 200 });
    const identities = await Promise.all(replicas.map(identityOf));
    assert.equal(new Set(identities).size, 3, 'three distinct identities');
    await eventually(async () => assert.deepEqual(await ingressStatus(), [{ ip: STATUS_ADDRESS, hostname: undefined }]), {
      timeoutMs: 10_000,
    });
    // The log line follows the API server's answer, so it may trail the status the test reads.
    await eventually(async () => assert.equal(await logged(leader, 'updated Ingress status'), 1), { timeoutMs: 5_000 });
    for (const replica of replicas) {
      assert.equal(await logged(replica, 'updated Ingress status'), replica === leader ? 1 : 0);
      await eventually(async () => assert.ok(await serves(replica), 'the replica serves the Ingress'), { timeoutMs: 10_000 });
    }
  });

  test('kill -9 of the leader: another takes over once the lease expires; the others serve throughout', async (t) => {
    const survivors = replicas.filter((replica) => replica !== leader);
    const transitions = (await lease()).spec?.leaseTransitions ?? 0;
    const killedAt = Date.now();
    await leader.process.kill();

    let failures = 0;
    let requests = 0;
    let newLeader: PorticoProcess | undefined;
    while (newLeader === undefined && Date.now() - killedAt < 4 * TTL_MS) {
      for (const survivor of survivors) {
        requests++;
        if (!(await serves(survivor))) failures++;
      }
      newLeader = await soleLeader(survivors).catch(() => undefined);
      if (newLeader === undefined) await sleep(100);
    }
    const takeoverMs = Date.now() - killedAt;
    t.diagnostic(`takeover after ${takeoverMs} ms (lease ${TTL_MS} ms, retry ${RETRY_MS} ms); ${requests} requests, ${failures} failed`);
    assert.ok(newLeader, 'a survivor took the lease');
    // Nobody may take an unexpired lease: the last renewal was at most one retry period before the kill.
    assert.ok(takeoverMs >= TTL_MS - RETRY_MS - 500, `the lease kept others out until it expired (${takeoverMs} ms)`);
    // It expires a lease duration after a survivor saw the last renewal, then one jittered retry (≤ 2.2 × retry) later.
    assert.ok(takeoverMs <= TTL_MS + 2 * 2.2 * RETRY_MS + 1500, `takeover within the lease duration and a retry (${takeoverMs} ms)`);
    assert.equal(failures, 0, 'the surviving replicas served every request');
    assert.equal((await lease()).spec?.leaseTransitions, transitions + 1);

    // The new leader keeps the status: an address written by someone else is corrected.
    await cluster.networking.patchNamespacedIngressStatus(
      { namespace: cluster.namespace, name: 'app', body: { status: { loadBalancer: { ingress: [{ ip: '198.51.100.1' }] } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually(async () => assert.deepEqual(await ingressStatus(), [{ ip: STATUS_ADDRESS, hostname: undefined }]), {
      timeoutMs: 10_000,
    });
    // The leader logs after the API server answered its patch, so the status can be read before the line is written.
    const writer = newLeader;
    await eventually(async () => assert.ok((await logged(writer, 'updated Ingress status')) >= 1, 'the new leader wrote it'), {
      timeoutMs: 5_000,
    });
    leader = newLeader;
  });

  test('a graceful stop releases the lease: the last replica takes over without waiting for it to expire', async (t) => {
    const last = replicas.find((replica) => replica !== leader && !replica.process.hasExited());
    assert.ok(last);
    await leader.process.stop(15_000); // SIGTERM; its log stays until after()
    assert.equal(await logged(leader, 'released the leader lease'), 1);
    const holder = (await lease()).spec?.holderIdentity;
    assert.ok(!holder || holder === (await identityOf(last)), `released (holder '${holder}')`);
    const stoppedAt = Date.now();
    // A released lease is free at once: the next attempt (≤ 2.2 × retry away) takes it.
    const newLeader = await eventually(() => soleLeader([last]), { timeoutMs: 2.2 * RETRY_MS + 1500, intervalMs: 100 });
    t.diagnostic(`taken over ${Date.now() - stoppedAt} ms after the old leader exited (lease ${TTL_MS} ms)`);
    assert.equal(newLeader, last);
    assert.ok(await serves(last));
  });
});
