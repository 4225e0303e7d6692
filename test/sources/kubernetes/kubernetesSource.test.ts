// The Kubernetes source against a real kube-apiserver, as the least-privileged
// controller identity of deploy/rbac.yaml: every kind's create, update and
// delete reaches the store, with class filtering and namespace scoping.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, DiscoveryV1Api, KubeConfig, NetworkingV1Api, RbacAuthorizationV1Api, type V1Ingress } from '@kubernetes/client-node';
import { createTestNamespace, sharedControlPlane } from '../../support/controlPlane.js';
import { eventually } from '../../support/eventually.js';
import { synced, watchCluster, type WatchedCluster } from '../../support/watchCluster.js';

let plane: Awaited<ReturnType<typeof sharedControlPlane>>;
let core: CoreV1Api;
let networking: NetworkingV1Api;
let discovery: DiscoveryV1Api;

before(async () => {
  plane = await sharedControlPlane();
  const admin = new KubeConfig();
  admin.loadFromFile(plane.adminKubeconfig);
  core = admin.makeApiClient(CoreV1Api);
  networking = admin.makeApiClient(NetworkingV1Api);
  discovery = admin.makeApiClient(DiscoveryV1Api);
});

/** A controller class unique to one test, so IngressClasses of parallel tests do not interfere. */
function uniqueController(): string {
  return `portico.test/${randomUUID().slice(0, 8)}`;
}

function ingressBody(name: string, spec: Partial<V1Ingress['spec']> = {}, annotations: Record<string, string> = {}): V1Ingress {
  return {
    metadata: { name, annotations },
    spec: {
      ...spec,
      rules: [
        {
          host: `${name}.example.test`,
          http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] },
        },
      ],
    },
  };
}

const names = (objects: { metadata?: { name?: string } }[]) => objects.map((o) => o.metadata?.name).sort();

describe('every kind: create, update and delete reach the store', () => {
  let namespace: string;
  let cluster: WatchedCluster;
  let controllerClass: string;

  before(async () => {
    namespace = await createTestNamespace(plane.adminKubeconfig, 'kinds');
    controllerClass = uniqueController();
    cluster = await watchCluster(plane.controllerKubeconfig, {
      watchNamespace: namespace,
      settings: { controllerClass, configMaps: [`${namespace}/portico-config`] },
    });
    await synced(cluster);
  });
  after(() => cluster?.stop());

  test('ConfigMap', async () => {
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'portico-config' }, data: { a: '1' } } });
    await eventually(() => assert.equal(cluster.store.configMap(`${namespace}/portico-config`)?.data?.['a'], '1'));
    await core.patchNamespacedConfigMap({ namespace, name: 'portico-config', body: [{ op: 'replace', path: '/data/a', value: '2' }] });
    await eventually(() => assert.equal(cluster.store.configMap(`${namespace}/portico-config`)?.data?.['a'], '2'));
    await core.deleteNamespacedConfigMap({ namespace, name: 'portico-config' });
    await eventually(() => assert.equal(cluster.store.configMap(`${namespace}/portico-config`), undefined));
  });

  test('Secret, but never Helm release secrets', async () => {
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'tls' }, type: 'Opaque', stringData: { k: 'v1' } } });
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'sh.helm.release.v1.app.v1' }, type: 'helm.sh/release.v1', stringData: { release: 'x' } },
    });
    await eventually(() => assert.ok(cluster.store.secret(`${namespace}/tls`)));
    await core.replaceNamespacedSecret({
      namespace,
      name: 'tls',
      body: { metadata: { name: 'tls' }, type: 'Opaque', stringData: { k: 'v2' } },
    });
    await eventually(() =>
      assert.equal(Buffer.from(cluster.store.secret(`${namespace}/tls`)?.data?.['k'] ?? '', 'base64').toString(), 'v2'),
    );
    assert.equal(cluster.store.secret(`${namespace}/sh.helm.release.v1.app.v1`), undefined);
    await core.deleteNamespacedSecret({ namespace, name: 'tls' });
    await eventually(() => assert.equal(cluster.store.secret(`${namespace}/tls`), undefined));
  });

  test('ConfigMaps of Helm 2 (OWNER=TILLER) are never listed', async () => {
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'tiller', labels: { OWNER: 'TILLER' } } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'marker' } } });
    await eventually(() => assert.ok(cluster.store.all('ConfigMap').some((c) => c.metadata?.name === 'marker')));
    assert.ok(!cluster.store.all('ConfigMap').some((c) => c.metadata?.name === 'tiller'));
  });

  test('Service and EndpointSlice, indexed by service name', async () => {
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80 }] } },
    });
    await discovery.createNamespacedEndpointSlice({
      namespace,
      body: {
        metadata: { name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.1.0.1'], conditions: { ready: true } }],
        ports: [{ name: 'http', port: 8080 }],
      },
    });
    await eventually(() => {
      assert.ok(cluster.store.service(`${namespace}/web`));
      assert.deepEqual(names(cluster.store.endpointSlicesOfService(`${namespace}/web`)), ['web-1']);
    });
    await discovery.patchNamespacedEndpointSlice({
      namespace,
      name: 'web-1',
      body: [{ op: 'replace', path: '/endpoints/0/addresses/0', value: '10.1.0.2' }],
    });
    await eventually(() =>
      assert.equal(cluster.store.endpointSlicesOfService(`${namespace}/web`)[0]?.endpoints[0]?.addresses[0], '10.1.0.2'),
    );
    await discovery.deleteNamespacedEndpointSlice({ namespace, name: 'web-1' });
    await core.deleteNamespacedService({ namespace, name: 'web' });
    await eventually(() => {
      assert.equal(cluster.store.service(`${namespace}/web`), undefined);
      assert.deepEqual(cluster.store.endpointSlicesOfService(`${namespace}/web`), []);
    });
  });

  test('IngressClass and Ingress, filtered by class', async () => {
    const className = `cls-${randomUUID().slice(0, 8)}`;
    const foreignClass = `${className}-foreign`;
    await networking.createIngressClass({ body: { metadata: { name: className }, spec: { controller: controllerClass } } });
    await networking.createIngressClass({ body: { metadata: { name: foreignClass }, spec: { controller: 'example.com/other' } } });
    await networking.createNamespacedIngress({ namespace, body: ingressBody('mine', { ingressClassName: className }) });
    await networking.createNamespacedIngress({ namespace, body: ingressBody('foreign', { ingressClassName: foreignClass }) });
    await networking.createNamespacedIngress({ namespace, body: ingressBody('unknown', { ingressClassName: 'no-such-class' }) });
    await networking.createNamespacedIngress({
      namespace,
      body: ingressBody('annotated', {}, { 'kubernetes.io/ingress.class': 'nginx' }),
    });
    await networking.createNamespacedIngress({
      namespace,
      body: ingressBody('annotated-other', {}, { 'kubernetes.io/ingress.class': 'traefik' }),
    });
    await networking.createNamespacedIngress({ namespace, body: ingressBody('classless') });
    // Every Ingress reaches the store; only those of our class are served.
    await eventually(() =>
      assert.deepEqual(names(cluster.store.all('Ingress')), ['annotated', 'annotated-other', 'classless', 'foreign', 'mine', 'unknown']),
    );
    assert.deepEqual(names(cluster.store.ingresses()), ['annotated', 'mine']);

    // Marking our class as the default claims the class-less Ingress.
    await networking.patchIngressClass({
      name: className,
      body: [{ op: 'add', path: '/metadata/annotations', value: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }],
    });
    await eventually(() => assert.deepEqual(names(cluster.store.ingresses()), ['annotated', 'classless', 'mine']));

    await networking.patchNamespacedIngress({
      namespace,
      name: 'mine',
      body: [{ op: 'replace', path: '/spec/rules/0/host', value: 'changed.example.test' }],
    });
    await eventually(() => assert.equal(cluster.store.ingress(`${namespace}/mine`)?.spec?.rules?.[0]?.host, 'changed.example.test'));

    // Deleting our IngressClass drops the Ingresses that named it.
    await networking.deleteIngressClass({ name: className });
    await eventually(() => assert.deepEqual(names(cluster.store.ingresses()), ['annotated']));
    await networking.deleteNamespacedIngress({ namespace, name: 'annotated' });
    await eventually(() => assert.deepEqual(names(cluster.store.ingresses()), []));
    await networking.deleteIngressClass({ name: foreignClass });
  });
});

describe('namespace scoping', () => {
  test('--watch-namespace hides every other namespace', async () => {
    const watched = await createTestNamespace(plane.adminKubeconfig, 'watched');
    const other = await createTestNamespace(plane.adminKubeconfig, 'other');
    for (const namespace of [watched, other]) {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'marker' } } });
    }
    const cluster = await watchCluster(plane.controllerKubeconfig, { watchNamespace: watched });
    try {
      await synced(cluster);
      await core.createNamespacedConfigMap({ namespace: other, body: { metadata: { name: 'later' } } });
      await core.createNamespacedConfigMap({ namespace: watched, body: { metadata: { name: 'later' } } });
      await eventually(() => assert.ok(cluster.store.configMap(`${watched}/later`)));
      const namespaces = new Set(cluster.store.all('ConfigMap').map((c) => c.metadata?.namespace));
      assert.deepEqual([...namespaces], [watched]);
    } finally {
      await cluster.stop();
    }
  });

  test('--watch-namespace-selector follows namespaces in and out of the selector', async () => {
    const label = `portico-test-${randomUUID().slice(0, 8)}`;
    const selected = await createTestNamespace(plane.adminKubeconfig, 'selected');
    const unselected = await createTestNamespace(plane.adminKubeconfig, 'unselected');
    await core.patchNamespace({ name: selected, body: [{ op: 'add', path: '/metadata/labels/' + label, value: 'yes' }] });
    for (const namespace of [selected, unselected]) {
      await core.createNamespacedService({ namespace, body: { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } } });
    }
    const cluster = await watchCluster(plane.controllerKubeconfig, { watchNamespaceSelector: `${label}=yes` });
    try {
      await synced(cluster);
      assert.ok(cluster.store.service(`${selected}/web`));
      assert.equal(cluster.store.service(`${unselected}/web`), undefined);
      assert.deepEqual(names(cluster.store.all('Namespace')), [selected]);

      await core.patchNamespace({ name: unselected, body: [{ op: 'add', path: '/metadata/labels/' + label, value: 'yes' }] });
      await eventually(() => assert.ok(cluster.store.service(`${unselected}/web`)));
      await core.patchNamespace({ name: selected, body: [{ op: 'remove', path: '/metadata/labels/' + label }] });
      await eventually(() => assert.equal(cluster.store.service(`${selected}/web`), undefined));
    } finally {
      await cluster.stop();
    }
  });
});

describe('permissions', () => {
  test('a missing RBAC permission fails the sync loudly, naming the forbidden resource', async () => {
    const admin = new KubeConfig();
    admin.loadFromFile(plane.adminKubeconfig);
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    const namespace = await createTestNamespace(plane.adminKubeconfig, 'rbac');
    const name = `no-secrets-${randomUUID().slice(0, 8)}`;
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
    // Everything Portico reads, except Secrets.
    await rbac.createClusterRole({
      body: {
        metadata: { name },
        rules: [
          { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingressclasses'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: [''], resources: ['services', 'configmaps', 'namespaces'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    });
    const token = await core.createNamespacedServiceAccountToken({
      namespace,
      name,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const limited = new KubeConfig();
    limited.loadFromOptions({
      clusters: admin.clusters,
      users: [{ name, token: token.status?.token }],
      contexts: [{ name, cluster: admin.getCurrentCluster()?.name ?? '', user: name }],
      currentContext: name,
    });
    const kubeconfigDir = await mkdtemp(join(tmpdir(), 'portico-rbac-'));
    const kubeconfigPath = join(kubeconfigDir, 'kubeconfig');
    await writeFile(kubeconfigPath, limited.exportConfig(), { mode: 0o600 });

    const cluster = await watchCluster(kubeconfigPath, { tuning: { backoff: { initialMs: 50, maxMs: 200 } } });
    try {
      await assert.rejects(synced(cluster, 3000), /Secret: .*HTTP 403.*secrets/s);
    } finally {
      await cluster.stop();
      await rbac.deleteClusterRoleBinding({ name });
      await rbac.deleteClusterRole({ name });
      await rm(kubeconfigDir, { recursive: true, force: true });
    }
  });
});
