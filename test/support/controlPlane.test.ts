import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  ApiException,
  CoreV1Api,
  DiscoveryV1Api,
  Health,
  KubeConfig,
  NetworkingV1Api,
  PatchStrategy,
  VersionApi,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { createTestNamespace, startControlPlane, type ControlPlane } from './controlPlane.js';
import { isRunning } from './isRunning.js';

const startTimeout = { timeout: 120_000 };

function kubeConfigFrom(path: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(path);
  return config;
}

async function assertForbidden(request: Promise<unknown>): Promise<void> {
  await assert.rejects(request, (error: unknown) => {
    assert.ok(error instanceof ApiException, `expected an API error, got ${String(error)}`);
    assert.equal(error.code, 403);
    return true;
  });
}

describe('test control plane', () => {
  let plane: ControlPlane;
  let admin: KubeConfig;
  let controller: KubeConfig;

  before(async () => {
    plane = await startControlPlane();
    admin = kubeConfigFrom(plane.adminKubeconfig);
    controller = kubeConfigFrom(plane.controllerKubeconfig);
  }, startTimeout);

  after(() => plane?.stop());

  it('is ready and runs kube-apiserver v1.34.4', async () => {
    assert.equal(await new Health(admin).readyz({}), true);
    const version = await admin.makeApiClient(VersionApi).getCode();
    assert.equal(version.gitVersion, 'v1.34.4');
  });

  it('lets the admin create namespaces with unique names', async () => {
    const first = await createTestNamespace(plane.adminKubeconfig, 'control-plane');
    const second = await createTestNamespace(plane.adminKubeconfig, 'control-plane');
    assert.match(first, /^control-plane-/);
    assert.notEqual(first, second);
  });

  it('lets the controller read what builds its configuration, cluster-wide', async () => {
    const core = controller.makeApiClient(CoreV1Api);
    const networking = controller.makeApiClient(NetworkingV1Api);
    const discovery = controller.makeApiClient(DiscoveryV1Api);
    await networking.listIngressForAllNamespaces();
    await networking.listIngressClass();
    await core.listServiceForAllNamespaces();
    await discovery.listEndpointSliceForAllNamespaces();
    await core.listSecretForAllNamespaces();
    await core.listConfigMapForAllNamespaces();
    await core.listNamespace();
  });

  it('lets the controller patch Ingress status', async () => {
    const namespace = await createTestNamespace(plane.adminKubeconfig, 'ingress-status');
    await admin.makeApiClient(NetworkingV1Api).createNamespacedIngress({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
      },
    });
    const patched = await controller
      .makeApiClient(NetworkingV1Api)
      .patchNamespacedIngressStatus(
        { namespace, name: 'web', body: { status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    assert.deepEqual(
      patched.status?.loadBalancer?.ingress?.map((ingress) => ingress.ip),
      ['192.0.2.1'],
    );
  });

  it('forbids the controller what it does not need', async () => {
    const namespace = await createTestNamespace(plane.adminKubeconfig, 'forbidden');
    await admin.makeApiClient(NetworkingV1Api).createNamespacedIngress({
      namespace,
      body: { metadata: { name: 'web' }, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } },
    });
    const core = controller.makeApiClient(CoreV1Api);
    await assertForbidden(core.createNamespacedSecret({ namespace, body: { metadata: { name: 'stolen' } } }));
    await assertForbidden(controller.makeApiClient(NetworkingV1Api).deleteNamespacedIngress({ namespace, name: 'web' }));
    await assertForbidden(core.listPodForAllNamespaces());
  });

  it('keeps its data when kube-apiserver is killed and started again', startTimeout, async () => {
    const namespace = await createTestNamespace(plane.adminKubeconfig, 'restart');
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'kept' }, data: { answer: '42' } } });
    const before = plane.processIds().kubeApiServer;

    await plane.killApiServer();
    assert.equal(plane.processIds().kubeApiServer, undefined);
    assert.equal(before !== undefined && isRunning(before), false);
    await assert.rejects(core.readNamespacedConfigMap({ namespace, name: 'kept' }));

    await plane.startApiServer();
    const kept = await core.readNamespacedConfigMap({ namespace, name: 'kept' });
    assert.deepEqual(kept.data, { answer: '42' });
  });

  it('compacts etcd to its current revision', async () => {
    const revision = await plane.compactEtcd();
    assert.ok(revision > 0, `revision ${revision}`);
    // kube-apiserver renews its identity Lease in the meantime, so the revision may move on.
    assert.ok((await plane.compactEtcd()) >= revision, 'compacting again is harmless');
  });

  it('leaves no process and no files behind when stopped', async () => {
    const { etcd, kubeApiServer } = plane.processIds();
    assert.ok(kubeApiServer !== undefined);
    // The pids are the binaries themselves, not the setpriv wrapper.
    assert.equal(readFileSync(`/proc/${etcd}/comm`, 'utf8').trim(), 'etcd');
    assert.equal(readFileSync(`/proc/${kubeApiServer}/comm`, 'utf8').trim(), 'kube-apiserver');

    await plane.stop();
    assert.equal(isRunning(etcd), false);
    assert.equal(isRunning(kubeApiServer), false);
    assert.throws(() => readFileSync(plane.adminKubeconfig), { code: 'ENOENT' });
  });
});
