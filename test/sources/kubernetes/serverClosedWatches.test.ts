// With a small --min-request-timeout the API server ends every watch after
// 1–2 s; the reflector must resume each from its last resourceVersion and miss
// nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestNamespace, startControlPlane, type ControlPlane } from '../../support/controlPlane.js';
import { eventually } from '../../support/eventually.js';
import { synced, watchCluster } from '../../support/watchCluster.js';
import { adminCoreApi, churnConfigMaps, storeAndTruth } from '../../support/configMapChurn.js';
import { setTimeout as sleep } from 'node:timers/promises';

let plane: ControlPlane;

before(async () => {
  plane = await startControlPlane({ minRequestTimeoutSeconds: 1 });
});
after(() => plane?.stop());

test('watches closed by the server again and again lose no change', async () => {
  const namespace = await createTestNamespace(plane.adminKubeconfig, 'timeouts');
  const core = adminCoreApi(plane.adminKubeconfig);
  // null: let the server pick each watch's timeout from --min-request-timeout.
  const cluster = await watchCluster(plane.controllerKubeconfig, { watchNamespace: namespace, tuning: { watchTimeoutSeconds: null } });
  try {
    await synced(cluster);
    const reflector = cluster.source.reflector('ConfigMap');
    assert.ok(reflector);
    await churnConfigMaps(core, namespace, { steps: 80, onStep: () => sleep(100) });
    await eventually(async () => {
      const { store, truth } = await storeAndTruth(cluster.store, core, namespace);
      assert.deepEqual(store, truth);
    });
    assert.ok(reflector.stats.watches >= 5, `the server closed watches repeatedly: ${JSON.stringify(reflector.stats)}`);
    assert.equal(reflector.stats.lists, 1, 'resumed from the last resourceVersion without re-listing');
  } finally {
    await cluster.stop();
  }
});
