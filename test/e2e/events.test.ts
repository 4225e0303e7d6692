// Kubernetes Events from a real Portico process, as `kubectl describe` finds
// them: "Sync" on each changed Ingress, problems the model reports (a missing
// TLS Secret, a host+path lost to an older Ingress), RELOAD on the controller
// pod named by POD_NAME/POD_NAMESPACE; --disable-sync-events drops only "Sync".
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { sharedControlPlane } from '../support/controlPlane.js';
import { eventually } from '../support/eventually.js';
import { applyIngress, createService, ingress, paths, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';

async function eventsOn(cluster: E2eCluster, kind: string, namespace: string, name: string): Promise<CoreV1Event[]> {
  const events = await cluster.core.listNamespacedEvent({
    namespace,
    fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}`,
  });
  return events.items;
}

function summary(events: readonly CoreV1Event[]): string[] {
  return events.map((event) => `${event.type} ${event.reason}: ${event.message}`).sort();
}

/** Waits for an Event of this reason on the Ingress and returns all its Events then. */
async function waitForReason(cluster: E2eCluster, name: string, reason: string): Promise<CoreV1Event[]> {
  return eventually(
    async () => {
      const events = await eventsOn(cluster, 'Ingress', cluster.namespace, name);
      assert.ok(
        events.some((event) => event.reason === reason),
        `no ${reason} Event on ${name}: ${JSON.stringify(summary(events))}`,
      );
      return events;
    },
    { timeoutMs: 15_000, intervalMs: 200 },
  );
}

describe('with the controller pod known', () => {
  let cluster: E2eCluster;
  let pod: V1Pod;
  const podName = `portico-${randomUUID().slice(0, 8)}`;

  before(async () => {
    // No kubelet runs it: the object only gives Portico an identity to report on.
    const admin = new KubeConfig();
    admin.loadFromFile((await sharedControlPlane()).adminKubeconfig);
    pod = await admin.makeApiClient(CoreV1Api).createNamespacedPod({
      namespace: 'portico',
      body: {
        metadata: { name: podName },
        spec: {
          serviceAccountName: 'portico',
          automountServiceAccountToken: false,
          containers: [{ name: 'controller', image: 'portico' }],
        },
      },
    });
    cluster = await startE2eCluster('events', [], { env: { POD_NAME: podName, POD_NAMESPACE: 'portico' } });
    await createService(cluster, 'web', await startBackends(cluster, 'web'));
  });
  after(async () => {
    await cluster?.core.deleteNamespacedPod({ namespace: 'portico', name: podName }).catch(() => undefined);
    await cluster?.close();
  });

  test('a new Ingress gets "Scheduled for sync", and the reload it causes is reported on the pod', async () => {
    await applyIngress(
      cluster,
      ingress(cluster, 'web', { rules: [{ host: 'web.events.test', http: { paths: paths(['/', 'Prefix', 'web']) } }] }),
    );
    const events = await waitForReason(cluster, 'web', 'Sync');
    assert.deepEqual(summary(events), ['Normal Sync: Scheduled for sync']);
    await eventually(
      async () => {
        const onPod = (await eventsOn(cluster, 'Pod', 'portico', podName)).filter((event) => event.reason === 'RELOAD');
        assert.deepEqual(summary(onPod), ['Normal RELOAD: Backend successfully reloaded']);
        assert.equal(onPod[0]?.involvedObject.uid, pod.metadata?.uid);
        // The first configuration (nginx starting) and the one with the new Ingress.
        assert.ok((onPod[0]?.count ?? 0) >= 2, `count ${onPod[0]?.count}`);
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
  });

  test('an update is a new "Sync" on the same Event (count 2)', async () => {
    await applyIngress(
      cluster,
      ingress(cluster, 'updated', { rules: [{ host: 'u.events.test', http: { paths: paths(['/', 'Prefix', 'web']) } }] }),
    );
    await waitForReason(cluster, 'updated', 'Sync');
    await applyIngress(
      cluster,
      ingress(cluster, 'updated', { rules: [{ host: 'u.events.test', http: { paths: paths(['/v2', 'Prefix', 'web']) } }] }),
    );
    await eventually(
      async () => {
        const sync = (await eventsOn(cluster, 'Ingress', cluster.namespace, 'updated')).filter((event) => event.reason === 'Sync');
        assert.deepEqual(
          sync.map((event) => event.count),
          [2],
        );
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
  });

  test('a missing TLS Secret is a Warning on the Ingress that names it', async () => {
    await applyIngress(
      cluster,
      ingress(cluster, 'secure', {
        tls: [{ hosts: ['secure.events.test'], secretName: 'absent' }],
        rules: [{ host: 'secure.events.test', http: { paths: paths(['/', 'Prefix', 'web']) } }],
      }),
    );
    const events = await waitForReason(cluster, 'secure', 'MissingTLSSecret');
    const warning = events.find((event) => event.reason === 'MissingTLSSecret');
    assert.equal(warning?.type, 'Warning');
    assert.match(
      warning?.message ?? '',
      new RegExp(`secret ${cluster.namespace}/absent not found; host secure.events.test gets the default certificate`),
    );
  });

  test('the younger of two Ingresses claiming one host+path is told it lost it; the older is not', async () => {
    const claim = paths(['/shared', 'Prefix', 'web']);
    await applyIngress(cluster, ingress(cluster, 'first', { rules: [{ host: 'overlap.events.test', http: { paths: claim } }] }));
    await waitForReason(cluster, 'first', 'Sync');
    await sleep(1_100); // creation timestamps have one-second resolution
    await applyIngress(cluster, ingress(cluster, 'second', { rules: [{ host: 'overlap.events.test', http: { paths: claim } }] }));
    const events = await waitForReason(cluster, 'second', 'PathConflict');
    const conflict = events.find((event) => event.reason === 'PathConflict');
    assert.equal(conflict?.type, 'Warning');
    assert.equal(
      conflict?.message,
      `path /shared on host overlap.events.test is already served by the older Ingress ${cluster.namespace}/first`,
    );
    assert.deepEqual(summary(await eventsOn(cluster, 'Ingress', cluster.namespace, 'first')), ['Normal Sync: Scheduled for sync']);
  });
});

describe('with --disable-sync-events', () => {
  let cluster: E2eCluster;

  before(async () => {
    cluster = await startE2eCluster('events-nosync', ['--disable-sync-events']);
  });
  after(() => cluster?.close());

  test('no "Sync" Event is recorded, while problems still are', async () => {
    await applyIngress(
      cluster,
      ingress(cluster, 'quiet', {
        tls: [{ hosts: ['quiet.events.test'], secretName: 'absent' }],
        rules: [{ host: 'quiet.events.test', http: { paths: paths(['/', 'Prefix', 'web']) } }],
      }),
    );
    // Within one sync the Sync Event would be written before the problem's.
    const events = await waitForReason(cluster, 'quiet', 'MissingTLSSecret');
    assert.deepEqual(
      events.map((event) => event.reason),
      ['MissingTLSSecret'],
    );
  });
});
