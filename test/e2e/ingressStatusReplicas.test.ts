// Ingress status across controller replicas, found as ingress-nginx finds
// them: pods in the controller's namespace with the labels of its own pod
// (POD_NAME). The last replica to leave clears the status; without a publish
// flag the status is the addresses of the Ready replicas' nodes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { CoreV1Api } from '@kubernetes/client-node';
import { applyIngress, createService, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';
import { adminCoreApi, appIngress, CONTROLLER_NAMESPACE, expectStatus, logText, mergePatch, statusOf } from '../support/ingressStatus.js';
import { startPortico, type PorticoProcess } from '../support/porticoProcess.js';

/** Owns the namespace and the `app` Service; writes a fixed address for its own class. */
let fixed: E2eCluster;
let admin: CoreV1Api;

before(async () => {
  fixed = await startE2eCluster('status-replicas', [
    '--publish-status-address=192.0.2.10',
    '--disable-leader-election',
    '--status-update-interval=1',
  ]);
  await createService(fixed, 'app', await startBackends(fixed, 'app'));
  await applyIngress(fixed, appIngress(fixed, 'other-class'));
  admin = await adminCoreApi();
});
after(async () => {
  await fixed?.close();
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
    await expectStatus(fixed, 'other-class', [{ ip: '192.0.2.10' }]);
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
    assert.deepEqual(await statusOf(fixed, 'other-class'), [{ ip: '192.0.2.10' }]);
  });
});

describe('without a publish flag: the nodes of the controller pods', () => {
  const unique = randomUUID().slice(0, 8);
  const nodeNames = ['a', 'b', 'c'].map((n) => `status-node-${unique}-${n}`);
  const podNames = ['a', 'b', 'c'].map((n) => `portico-nodes-${unique}-${n}`);
  const env = { POD_NAMESPACE: CONTROLLER_NAMESPACE, POD_NAME: podNames[0] as string };
  let external: E2eCluster;

  before(async () => {
    const addresses: Record<string, string>[] = [
      { InternalIP: '10.9.0.1', ExternalIP: '203.0.113.11' },
      { InternalIP: '10.9.0.2' },
      { InternalIP: '10.9.0.3', ExternalIP: '203.0.113.13' },
    ];
    for (const [i, name] of nodeNames.entries()) {
      await admin.createNode({ body: { metadata: { name } } });
      const nodeAddresses = Object.entries(addresses[i] ?? {}).map(([type, address]) => ({ type, address }));
      await admin.patchNodeStatus({ name, body: { status: { addresses: nodeAddresses } } }, mergePatch);
    }
    // Three replicas' pods, bound to the nodes; the one on the third node is not Ready.
    for (const [i, name] of podNames.entries()) {
      await admin.createNamespacedPod({
        namespace: CONTROLLER_NAMESPACE,
        body: {
          metadata: { name, labels: { app: `portico-nodes-${unique}` } },
          spec: { nodeName: nodeNames[i], containers: [{ name: 'controller', image: 'portico' }] },
        },
      });
      const ready = i < 2 ? 'True' : 'False';
      await admin.patchNamespacedPodStatus(
        { namespace: CONTROLLER_NAMESPACE, name, body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready }] } } },
        mergePatch,
      );
    }
    external = await startE2eCluster('status-nodes', [`--election-id=status-${unique}`, '--status-update-interval=1'], {
      namespace: fixed.namespace,
      env,
    });
  });
  after(async () => {
    await external?.close();
    for (const name of podNames) await admin.deleteNamespacedPod({ namespace: CONTROLLER_NAMESPACE, name }).catch(() => undefined);
    for (const name of nodeNames) await admin.deleteNode({ name }).catch(() => undefined);
  });

  test('each Ready pod node’s ExternalIP, else its InternalIP; several nodes leave the status to the next leader at shutdown', async () => {
    await applyIngress(external, appIngress(external, 'on-nodes'));
    await expectStatus(external, 'on-nodes', [{ ip: '10.9.0.2' }, { ip: '203.0.113.11' }]);
    await external.portico.process.stop(15_000);
    assert.match(await logText(external.portico), /leaving Ingress status to the next leader/);
    assert.deepEqual(await statusOf(external, 'on-nodes'), [{ ip: '10.9.0.2' }, { ip: '203.0.113.11' }]);
  });

  test('--report-node-internal-ip-address: the InternalIPs', async () => {
    const internal = await startE2eCluster(
      'status-internal',
      [`--election-id=status-internal-${unique}`, '--status-update-interval=1', '--report-node-internal-ip-address'],
      { namespace: fixed.namespace, env },
    );
    try {
      await applyIngress(internal, appIngress(internal, 'on-internal'));
      await expectStatus(internal, 'on-internal', [{ ip: '10.9.0.1' }, { ip: '10.9.0.2' }]);
    } finally {
      await internal.close();
    }
  });
});
