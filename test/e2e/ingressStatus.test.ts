// `.status.loadBalancer.ingress` as ingress-nginx writes it: from
// --publish-status-address, or from the --publish-service Service by type;
// only on Ingresses nginx serves, and only once it serves them; never on
// another class's Ingress; not at all with --update-status=false; cleared at
// shutdown only by the last replica.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, type V1Ingress } from '@kubernetes/client-node';
import { sharedControlPlane } from '../support/controlPlane.js';
import { applyIngress, createService, ingress, paths, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { startPortico, type PorticoProcess } from '../support/porticoProcess.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
// Leases and the replicas' pods live in the controller's namespace (deploy/rbac.yaml).
const CONTROLLER_NAMESPACE = 'portico';

/** Owns the namespace and the `app` Service; --publish-status-address, no leader election. */
let fixed: E2eCluster;
let admin: CoreV1Api;

before(async () => {
  fixed = await startE2eCluster('status', ['--publish-status-address=192.0.2.10, lb.example.test', '--disable-leader-election', '--status-update-interval=1']);
  await createService(fixed, 'app', await startBackends(fixed, 'app'));
  const config = new KubeConfig();
  config.loadFromFile((await sharedControlPlane()).adminKubeconfig);
  admin = config.makeApiClient(CoreV1Api);
});
after(async () => {
  await fixed?.close();
});

type Address = { ip?: string; hostname?: string };

async function statusOf(cluster: E2eCluster, name: string): Promise<Address[]> {
  const current = await cluster.networking.readNamespacedIngress({ namespace: cluster.namespace, name });
  return (current.status?.loadBalancer?.ingress ?? []).map(({ ip, hostname }) => ({ ...(ip ? { ip } : {}), ...(hostname ? { hostname } : {}) }));
}

async function expectStatus(cluster: E2eCluster, name: string, expected: Address[]): Promise<void> {
  await eventually(async () => assert.deepEqual(await statusOf(cluster, name), expected, `status of ${name}`), { timeoutMs: 15_000, intervalMs: 100 });
}

function appIngress(cluster: E2eCluster, name: string, annotations: Record<string, string> = {}): V1Ingress {
  return ingress(cluster, name, { rules: [{ host: `${name}.status.test`, http: { paths: paths(['/', 'Prefix', 'app']) } }] }, annotations);
}

async function setStatus(cluster: E2eCluster, name: string, addresses: Address[]): Promise<void> {
  await cluster.networking.patchNamespacedIngressStatus(
    { namespace: cluster.namespace, name, body: { status: { loadBalancer: { ingress: addresses } } } },
    mergePatch,
  );
}

async function logText(portico: PorticoProcess): Promise<string> {
  return readFile(portico.process.logPath, 'utf8');
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

    // A valid version is served, and then published.
    await applyIngress(fixed, appIngress(fixed, 'refused', { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' }));
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
    const quiet = await startE2eCluster('status-off', ['--update-status=false', '--publish-status-address=192.0.2.30', '--status-update-interval=1'], {
      namespace: fixed.namespace,
    });
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

describe('--update-status-on-shutdown with two replicas', () => {
  const unique = randomUUID().slice(0, 8);
  const podNames = [`portico-${unique}-a`, `portico-${unique}-b`];
  let first: E2eCluster;
  let second: PorticoProcess;

  before(async () => {
    // The replicas' pods, as a Deployment would label them (pod-template-hash differs between revisions).
    for (const [i, name] of podNames.entries()) {
      await admin.createNamespacedPod({
        namespace: CONTROLLER_NAMESPACE,
        body: {
          metadata: { name, labels: { app: `portico-${unique}`, 'pod-template-hash': `rev${i}` } },
          spec: { containers: [{ name: 'controller', image: 'portico' }] },
        },
      });
    }
    const env = (podName: string): Record<string, string> => ({ POD_NAMESPACE: CONTROLLER_NAMESPACE, POD_NAME: podName });
    first = await startE2eCluster(
      'status-shutdown',
      ['--publish-status-address=192.0.2.40', `--election-id=status-${unique}`, '--status-update-interval=1', '--election-ttl=4s'],
      { namespace: fixed.namespace, env: env(podNames[0] as string) },
    );
    second = await startPortico(first.porticoArgs, { env: env(podNames[1] as string) });
    await applyIngress(first, appIngress(first, 'replicated'));
  });
  after(async () => {
    await second?.stop();
    await first?.close();
    for (const name of podNames) await admin.deleteNamespacedPod({ namespace: CONTROLLER_NAMESPACE, name }).catch(() => undefined);
  });

  test('a replica leaving while another runs keeps the status; the last one clears it, and only on its own Ingresses', async () => {
    await expectStatus(first, 'replicated', [{ ip: '192.0.2.40' }]);

    await second.process.stop(15_000);
    assert.match(await logText(second), /other controller replicas run; Ingress status kept/);
    assert.deepEqual(await statusOf(first, 'replicated'), [{ ip: '192.0.2.40' }]);

    // Its pod goes away with it, as the ReplicaSet would delete it.
    await admin.deleteNamespacedPod({ namespace: CONTROLLER_NAMESPACE, name: podNames[1] as string });
    await first.portico.process.stop(15_000);
    assert.match(await logText(first.portico), /last replica: removing the address from Ingress status/);
    assert.deepEqual(await statusOf(first, 'replicated'), []);
    // Another class's Ingress in the same namespace keeps what its controller wrote.
    assert.deepEqual(await statusOf(fixed, 'served'), [{ ip: '192.0.2.10' }, { hostname: 'lb.example.test' }]);
  });
});
