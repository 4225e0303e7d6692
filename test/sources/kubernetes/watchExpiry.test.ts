// The link between the reflector and kube-apiserver (a test proxy) is cut or
// frozen while objects change; etcd compaction then makes the old
// resourceVersion unusable. The reflector must notice, re-list, and converge.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestNamespace, startControlPlane, type ControlPlane } from '../../support/controlPlane.js';
import { eventually } from '../../support/eventually.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcpProxy.js';
import { synced, watchCluster, type WatchedCluster } from '../../support/watchCluster.js';
import { adminCoreApi, deleteConfigMap, putConfigMap, storeAndTruth } from '../../support/configMapChurn.js';

let plane: ControlPlane;
let proxy: TcpProxy;

before(async () => {
  // Without the watch cache every watch is served by etcd, so compaction alone yields 410 Gone.
  plane = await startControlPlane({ watchCache: false });
  proxy = await startTcpProxy('127.0.0.1', Number(new URL(plane.server).port));
});
after(async () => {
  await proxy?.close();
  await plane?.stop();
});

async function watchThroughProxy(namespace: string, inactivityTimeoutMs = 90_000): Promise<WatchedCluster> {
  const cluster = await watchCluster(plane.controllerKubeconfig, {
    watchNamespace: namespace,
    apiserverHost: `https://127.0.0.1:${proxy.port}`,
    tuning: { backoff: { initialMs: 100, maxMs: 500 }, inactivityTimeoutMs },
  });
  await synced(cluster);
  return cluster;
}

test('etcd compaction forces 410 Gone: the reflector re-lists and the store matches, deletes included', async () => {
  const namespace = await createTestNamespace(plane.adminKubeconfig, 'compaction');
  const core = adminCoreApi(plane.adminKubeconfig);
  for (let i = 0; i < 6; i++) await putConfigMap(core, namespace, `cm-${i}`, 'initial');
  const cluster = await watchThroughProxy(namespace);
  try {
    const reflector = cluster.source.reflector('ConfigMap');
    assert.ok(reflector);
    await eventually(async () => {
      const { store, truth } = await storeAndTruth(cluster.store, core, namespace);
      assert.deepEqual(store, truth);
    });

    proxy.cut();
    await deleteConfigMap(core, namespace, 'cm-0');
    await deleteConfigMap(core, namespace, 'cm-1');
    await putConfigMap(core, namespace, 'cm-2', 'changed');
    await putConfigMap(core, namespace, 'cm-new', 'added');
    const revision = await plane.compactEtcd();
    assert.ok(revision > 0);
    proxy.resume();

    await eventually(async () => {
      const { store, truth } = await storeAndTruth(cluster.store, core, namespace);
      assert.deepEqual(store, truth);
    });
    assert.ok(reflector.stats.gone >= 1, `expected a 410 Gone; stats: ${JSON.stringify(reflector.stats)}`);
    assert.ok(reflector.stats.lists >= 2, 'the reflector listed again');
    const names = [...cluster.store.all('ConfigMap')].filter((c) => c.metadata?.namespace === namespace).map((c) => c.metadata?.name);
    assert.ok(!names.includes('cm-0') && !names.includes('cm-1'), 'deletes missed during the outage were applied');
  } finally {
    await cluster.stop();
  }
});

test('a frozen (half-open) connection is abandoned after the inactivity timeout', async () => {
  const namespace = await createTestNamespace(plane.adminKubeconfig, 'stall');
  const core = adminCoreApi(plane.adminKubeconfig);
  const cluster = await watchThroughProxy(namespace, 1500);
  try {
    const reflector = cluster.source.reflector('ConfigMap');
    assert.ok(reflector);
    const errorsBefore = reflector.stats.errors;
    proxy.stall();
    await putConfigMap(core, namespace, 'during-stall', 'x');
    await eventually(() => assert.ok(reflector.stats.errors > errorsBefore, 'the frozen watch timed out'), { timeoutMs: 10_000 });
    assert.match(reflector.stats.lastError ?? '', /timeout/i);
    proxy.resume();
    await eventually(async () => {
      const { store, truth } = await storeAndTruth(cluster.store, core, namespace);
      assert.deepEqual(store, truth);
    });
  } finally {
    proxy.resume();
    await cluster.stop();
  }
});
