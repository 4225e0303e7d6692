// `.status.loadBalancer.ingress` as ingress-nginx writes it: from
// --publish-status-address, or from the --publish-service Service by type;
// only on Ingresses nginx serves, and only once it serves them; never on
// another class's Ingress; not at all with --update-status=false. Cleared at
// shutdown only by the last replica (ingressStatusReplicas.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Ingress } from '@kubernetes/client-node';
import {
  applyIngress,
  applyIngressAndReload,
  createService,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import {
  adminCoreApi,
  appIngress,
  CONTROLLER_NAMESPACE,
  expectStatus,
  logText,
  mergePatch,
  statusOf,
  type Address,
} from '../support/ingressStatus.js';

/** Owns the namespace and the `app` Service; --publish-status-address, no leader election. */
let fixed: E2eCluster;
let admin: CoreV1Api;

before(async () => {
  fixed = await startE2eCluster('status', [
    '--publish-status-address=192.0.2.10, lb.example.test',
    '--disable-leader-election',
    '--status-update-interval=1',
  ]);
  await createService(fixed, 'app', await startBackends(fixed, 'app'));
  admin = await adminCoreApi();
});
after(async () => {
  await fixed?.close();
});

async function setStatus(cluster: E2eCluster, name: string, addresses: Address[]): Promise<void> {
  await cluster.networking.patchNamespacedIngressStatus(
    { namespace: cluster.namespace, name, body: { status: { loadBalancer: { ingress: addresses } } } },
    mergePatch,
  );
}

async function serves(cluster: E2eCluster, name: string): Promise<void> {
  const response = await httpGet({ port: cluster.portico.ports.http, host: `${name}.status.test`, path: '/' });
  assert.equal(response.status, 200);
  assert.equal(echoed(response).service, 'app');
}

describe('--publish-status-address', () => {
  test('is written, sorted (IPs before hostnames), on a served Ingress; without a Lease when election is disabled', async () => {
    await applyIngress(fixed, appIngress(fixed, 'served'));
    await expectStatus(fixed, 'served', [{ ip: '192.0.2.10' }, { hostname: 'lb.example.test' }]);
    assert.doesNotMatch(await logText(fixed.portico), /campaigning for leadership/);
  });

  test('only Ingresses nginx serves get it, once they are served; another class is never touched', async () => {
    // Never served: its only version is refused.
    await applyIngress(fixed, appIngress(fixed, 'refused', { 'nginx.ingress.kubernetes.io/ssl-redirect': 'maybe' }));
    // Another controller's Ingresses, one with an address of its own.
    const foreign = (name: string): V1Ingress => ({
      metadata: { name },
      spec: { ingressClassName: 'someone-else', rules: [{ host: `${name}.status.test`, http: { paths: paths(['/', 'Prefix', 'app']) } }] },
    });
    await fixed.networking.createNamespacedIngress({ namespace: fixed.namespace, body: foreign('foreign') });
    await fixed.networking.createNamespacedIngress({ namespace: fixed.namespace, body: foreign('foreign-with-status') });
    await setStatus(fixed, 'foreign-with-status', [{ ip: '198.51.100.9' }]);
    // Created after them: once it has its status, a status round has seen all of the above.
    await applyIngress(fixed, appIngress(fixed, 'later'));
    await expectStatus(fixed, 'later', [{ ip: '192.0.2.10' }, { hostname: 'lb.example.test' }]);
    await sleep(1500); // and one more round (--status-update-interval=1)
    assert.deepEqual(await statusOf(fixed, 'refused'), []);
    assert.deepEqual(await statusOf(fixed, 'foreign'), []);
    assert.deepEqual(await statusOf(fixed, 'foreign-with-status'), [{ ip: '198.51.100.9' }]);

    // A valid version is served, and then published. Its reload waited for: a worker of before would 404 the request below.
    await applyIngressAndReload(fixed, appIngress(fixed, 'refused', { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' }));
    await expectStatus(fixed, 'refused', [{ ip: '192.0.2.10' }, { hostname: 'lb.example.test' }]);
    await serves(fixed, 'refused');
  });
});

describe('--publish-service', () => {
  let published: E2eCluster;

  before(async () => {
    await admin.createNamespacedService({
      namespace: fixed.namespace,
      body: { metadata: { name: 'edge' }, spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 80 }] } },
    });
    published = await startE2eCluster(
      'status-service',
      [`--publish-service=${fixed.namespace}/edge`, `--election-id=status-${randomUUID().slice(0, 8)}`, '--status-update-interval=1'],
      { namespace: fixed.namespace, env: { POD_NAMESPACE: CONTROLLER_NAMESPACE } },
    );
    await applyIngress(published, appIngress(published, 'via-service'));
  });
  after(async () => {
    await published?.close();
  });

  async function patchEdge(spec: Record<string, unknown>): Promise<void> {
    await admin.patchNamespacedService({ namespace: fixed.namespace, name: 'edge', body: { spec } }, mergePatch);
  }

  test('follows the Service through its types: ClusterIP, NodePort, LoadBalancer, ExternalName', async () => {
    const service = await admin.readNamespacedService({ namespace: fixed.namespace, name: 'edge' });
    const clusterIp = service.spec?.clusterIP;
    assert.ok(clusterIp && clusterIp !== 'None');

    // ClusterIP: the cluster IP.
    await expectStatus(published, 'via-service', [{ ip: clusterIp }]);

    // NodePort: the external IPs, else the cluster IP.
    await patchEdge({ type: 'NodePort', externalIPs: ['192.0.2.21'] });
    await expectStatus(published, 'via-service', [{ ip: '192.0.2.21' }]);

    // LoadBalancer: the balancer's ingress points (set by the cloud, here the admin) and the external IPs.
    await patchEdge({ type: 'LoadBalancer' });
    await admin.patchNamespacedServiceStatus(
      {
        namespace: fixed.namespace,
        name: 'edge',
        body: { status: { loadBalancer: { ingress: [{ ip: '203.0.113.5' }, { hostname: 'lb.cloud.test' }] } } },
      },
      mergePatch,
    );
    await expectStatus(published, 'via-service', [{ ip: '192.0.2.21' }, { ip: '203.0.113.5' }, { hostname: 'lb.cloud.test' }]);

    // ExternalName: its hostname.
    await patchEdge({ type: 'ExternalName', externalName: 'edge.example.test', externalIPs: null });
    await expectStatus(published, 'via-service', [{ hostname: 'edge.example.test' }]);
  });
});

describe('--update-status=false', () => {
  test('writes nothing, even on a served Ingress', async () => {
    const quiet = await startE2eCluster(
      'status-off',
      ['--update-status=false', '--publish-status-address=192.0.2.30', '--status-update-interval=1'],
      {
        namespace: fixed.namespace,
      },
    );
    try {
      await applyIngress(quiet, appIngress(quiet, 'quiet'));
      await eventually(() => serves(quiet, 'quiet'), { timeoutMs: 15_000 });
      await sleep(3000); // three status intervals
      assert.deepEqual(await statusOf(quiet, 'quiet'), []);
      assert.match(await logText(quiet.portico), /Ingress status updates are disabled/);
    } finally {
      await quiet.close();
    }
  });
});
