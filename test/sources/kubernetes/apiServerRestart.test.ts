// kube-apiserver is killed and restarted on the same etcd while objects keep
// changing: once it is back, the store must equal the API server's truth.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestNamespace, startControlPlane, type ControlPlane } from '../../support/controlPlane.js';
import { eventually } from '../../support/eventually.js';
import { synced, watchCluster, type WatchedCluster } from '../../support/watchCluster.js';
import { adminCoreApi, churnConfigMaps, storeAndTruth } from '../../support/configMapChurn.js';

let plane: ControlPlane;
let cluster: WatchedCluster;

before(async () => {
  plane = await startControlPlane();
});
after(async () => {
  await cluster?.stop();
  await plane?.stop();
});

test('after kube-apiserver is killed and restarted mid-churn, the store equals the truth', async () => {
  const namespace = await createTestNamespace(plane.adminKubeconfig, 'restart');
  const core = adminCoreApi(plane.adminKubeconfig);
  cluster = await watchCluster(plane.controllerKubeconfig, {
    watchNamespace: namespace,
    tuning: { backoff: { initialMs: 100, maxMs: 1000 } },
  });
  await synced(cluster);
  const reflector = cluster.source.reflector('ConfigMap');
  assert.ok(reflector);

  await churnConfigMaps(core, namespace, {
    steps: 60,
    onStep: async (step) => {
      if (step === 20) {
        await plane.killApiServer();
        await sleep(500);
        await plane.startApiServer();
      }
    },
  });
  await eventually(async () => {
    const { store, truth } = await storeAndTruth(cluster.store, core, namespace);
    assert.deepEqual(store, truth);
  });
  assert.ok(reflector.stats.errors >= 1, 'the reflector saw the API server go away');
  assert.ok(reflector.stats.watches >= 2, 'and watched again after it returned');
});
