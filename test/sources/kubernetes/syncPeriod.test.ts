// --sync-period against a real kube-apiserver: with a period, every reflector
// lists again that often although its watch is healthy (the store repopulated
// from the API server, as ingress-nginx's informers resync); without one it
// lists once and only watches.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestNamespace, sharedControlPlane } from '../../support/controlPlane.js';
import { adminCoreApi, putConfigMap, storeAndTruth } from '../../support/configMapChurn.js';
import { eventually } from '../../support/eventually.js';
import { synced, watchCluster, type WatchedCluster } from '../../support/watchCluster.js';

const PERIOD_MS = 1500;
const clusters: WatchedCluster[] = [];

async function watching(namespace: string, syncPeriodMs: number): Promise<WatchedCluster> {
  const cluster = await watchCluster((await sharedControlPlane()).controllerKubeconfig, { watchNamespace: namespace, syncPeriodMs });
  clusters.push(cluster);
  await synced(cluster);
  return cluster;
}

let namespace: string;
before(async () => {
  namespace = await createTestNamespace((await sharedControlPlane()).adminKubeconfig, 'sync-period');
});
after(async () => {
  await Promise.all(clusters.map((cluster) => cluster.stop()));
});

test('with --sync-period every reflector re-lists each period while its watch stays healthy; without it lists once', async () => {
  const core = adminCoreApi((await sharedControlPlane()).adminKubeconfig);
  await putConfigMap(core, namespace, 'settings', 'first');
  const resynced = await watching(namespace, PERIOD_MS);
  const plain = await watching(namespace, 0);
  const started = performance.now();

  await eventually(
    () => {
      for (const kind of ['ConfigMap', 'Ingress', 'EndpointSlice'] as const) {
        assert.ok((resynced.source.reflector(kind)?.stats.lists ?? 0) >= 3, `${kind} listed again`);
      }
    },
    { timeoutMs: 20_000, intervalMs: 100 },
  );
  // Three lists take at least two periods: the period, not a failing watch, drives them.
  assert.ok(performance.now() - started >= 2 * PERIOD_MS - 100);
  const stats = resynced.source.reflector('ConfigMap')?.stats;
  assert.equal(stats?.errors, 0, stats?.lastError);
  assert.equal(stats?.gone, 0);
  assert.equal(plain.source.reflector('ConfigMap')?.stats.lists, 1);

  // Between lists the watch still delivers changes, to both.
  await putConfigMap(core, namespace, 'settings', 'second');
  for (const cluster of [resynced, plain]) {
    await eventually(async () => {
      const { store, truth } = await storeAndTruth(cluster.store, core, namespace);
      assert.deepEqual(store, truth);
    });
  }
});
