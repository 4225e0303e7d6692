// --enable-topology-aware-routing against the real kube-apiserver and nginx:
// the controller's pod (POD_NAME/POD_NAMESPACE) is bound to a Node labelled
// with a zone; a Service with topology-mode Auto has an EndpointSlice whose
// endpoints are hinted for two zones; requests reach only the backends hinted
// for the controller's zone. A Service that does not ask gets all of them.
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import {
  ECHO_PORT,
  applyIngressAndReload,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { adminCoreApi, CONTROLLER_NAMESPACE } from '../support/ingressStatus.js';
import type { EchoBackend } from '../support/testNetwork.js';
import type { CoreV1Api } from '@kubernetes/client-node';

const unique = randomUUID().slice(0, 8);
const nodeName = `portico-zone-${unique}`;
const podName = `portico-topology-${unique}`;
let admin: CoreV1Api;
let cluster: E2eCluster;
let backends: EchoBackend[];

before(async () => {
  admin = await adminCoreApi();
  await admin.createNode({ body: { metadata: { name: nodeName, labels: { 'topology.kubernetes.io/zone': 'zone-a' } } } });
  await admin.createNamespacedPod({
    namespace: CONTROLLER_NAMESPACE,
    body: { metadata: { name: podName }, spec: { nodeName, containers: [{ name: 'controller', image: 'portico' }] } },
  });
  const namespace = await createTestNamespace((await sharedControlPlane()).adminKubeconfig, 'topology');
  cluster = await startE2eCluster('topology', ['--enable-topology-aware-routing'], {
    namespace,
    env: { POD_NAME: podName, POD_NAMESPACE: CONTROLLER_NAMESPACE },
  });
  backends = await startBackends(cluster, 'zoned', 3);
});
after(async () => {
  await cluster?.close();
  await admin?.deleteNamespacedPod({ namespace: CONTROLLER_NAMESPACE, name: podName }).catch(() => undefined);
  await admin?.deleteNode({ name: nodeName }).catch(() => undefined);
});

/** A Service over the three backends, hinted zone-a, zone-b, zone-a, and an Ingress for it; its host. */
async function serve(name: string, annotations: Record<string, string>): Promise<string> {
  await cluster.core.createNamespacedService({
    namespace: cluster.namespace,
    body: { metadata: { name, annotations }, spec: { ports: [{ name: 'http', port: 80, targetPort: ECHO_PORT }] } },
  });
  const zones = ['zone-a', 'zone-b', 'zone-a'];
  await cluster.discovery.createNamespacedEndpointSlice({
    namespace: cluster.namespace,
    body: {
      metadata: { name: `${name}-slice`, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: backends.map((backend, i) => ({
        addresses: [backend.address],
        conditions: { ready: true },
        zone: zones[i],
        hints: { forZones: [{ name: zones[i] ?? '' }] },
      })),
      ports: [{ name: 'http', port: ECHO_PORT, protocol: 'TCP' }],
    },
  });
  const host = `${name}.topology.test`;
  await applyIngressAndReload(cluster, ingress(cluster, name, { rules: [{ host, http: { paths: paths(['/', 'Prefix', name]) } }] }));
  await eventually(async () => assert.equal((await httpGet({ port: cluster.portico.ports.http, host })).status, 200));
  return host;
}

async function instancesAnswering(host: string, requests: number): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < requests; i++) {
    const result = await httpGet({ port: cluster.portico.ports.http, host });
    seen.add(result.status === 200 ? echoed(result).instance : String(result.status));
  }
  return [...seen].sort();
}

test('a Service with topology-mode Auto is served by the endpoints hinted for the controller zone only', async () => {
  const host = await serve('zoned', { 'service.kubernetes.io/topology-mode': 'Auto' });
  assert.deepEqual(await instancesAnswering(host, 30), ['zoned-1', 'zoned-3']);
  assert.match(cluster.portico.logTail(400), /"zone":"zone-a"/);
});

test('a Service that does not ask for topology-aware routing is served by all its endpoints', async () => {
  const host = await serve('anywhere', {});
  assert.deepEqual(await instancesAnswering(host, 30), ['zoned-1', 'zoned-2', 'zoned-3']);
});
