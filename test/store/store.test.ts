import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store, type StoreSettings } from '../../src/store/store.js';
import { ChangeFeed } from '../../src/store/changeFeed.js';
import { TEST_STORE_SETTINGS } from '../support/watchCluster.js';
import type { EndpointSlice, Ingress, IngressClass, Secret, Service } from '../../src/kube/objects.js';

const settings: StoreSettings = { ...TEST_STORE_SETTINGS, configMaps: ['portico/config'] };

/** A store whose change feed is drained synchronously by `changed()`. */
function storeWith(overrides: Partial<StoreSettings> = {}) {
  const feed = new ChangeFeed({ quietMs: 0, maxDelayMs: 0 });
  const seen = new Set<string>();
  const originalPush = feed.push.bind(feed);
  feed.push = (key: string) => {
    seen.add(key);
    originalPush(key);
  };
  const store = new Store({ ...settings, ...overrides }, feed);
  const changed = () => {
    const keys = [...seen].sort();
    seen.clear();
    return keys;
  };
  return { store, changed };
}

function ingress(name: string, spec: Ingress['spec'], annotations: Record<string, string> = {}, namespace = 'app'): Ingress {
  return { metadata: { name, namespace, annotations, resourceVersion: '1' }, spec };
}

const nginxClass: IngressClass = { metadata: { name: 'nginx', resourceVersion: '1' }, spec: { controller: 'k8s.io/ingress-nginx' } };
const routed = (service: string, secret?: string): Ingress['spec'] => ({
  ingressClassName: 'nginx',
  tls: secret ? [{ hosts: ['a.example'], secretName: secret }] : undefined,
  rules: [
    {
      host: 'a.example',
      http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { number: 80 } } } }] },
    },
  ],
});

test('only Ingresses of our class are served; an IngressClass change re-decides them', () => {
  const { store, changed } = storeWith();
  store.sink('Ingress').replace([ingress('mine', routed('web')), ingress('theirs', { ...routed('web'), ingressClassName: 'other' })]);
  assert.deepEqual(store.ingresses(), [], 'no IngressClass yet: nothing is ours');
  assert.deepEqual(changed(), []);
  store.sink('IngressClass').upsert(nginxClass);
  assert.deepEqual(
    store.ingresses().map((i) => i.metadata?.name),
    ['mine'],
  );
  assert.deepEqual(changed(), ['Ingress/app/mine', 'IngressClass/nginx']);
  store.sink('IngressClass').remove(nginxClass);
  assert.deepEqual(store.ingresses(), []);
  assert.deepEqual(changed(), ['Ingress/app/mine', 'IngressClass/nginx']);
});

test('a foreign IngressClass or Ingress changes nothing', () => {
  const { store, changed } = storeWith();
  store.sink('IngressClass').upsert({ metadata: { name: 'other', resourceVersion: '1' }, spec: { controller: 'example.com/x' } });
  store.sink('Ingress').upsert(ingress('theirs', { ...routed('web'), ingressClassName: 'other' }));
  assert.deepEqual(changed(), []);
});

test('Secrets and Services count only when a served Ingress uses them; slices follow their Service', () => {
  const { store, changed } = storeWith();
  store.sink('IngressClass').upsert(nginxClass);
  store.sink('Ingress').upsert(ingress('web', routed('web', 'web-tls')));
  changed();
  const secret = (name: string): Secret => ({ metadata: { name, namespace: 'app', resourceVersion: '1' }, type: 'kubernetes.io/tls' });
  store.sink('Secret').upsert(secret('web-tls'));
  store.sink('Secret').upsert(secret('unrelated'));
  const service = (name: string): Service => ({ metadata: { name, namespace: 'app', resourceVersion: '1' } });
  store.sink('Service').upsert(service('web'));
  store.sink('Service').upsert(service('other'));
  const slice = (name: string, svc: string): EndpointSlice => ({
    metadata: { name, namespace: 'app', resourceVersion: '1', labels: { 'kubernetes.io/service-name': svc } },
    addressType: 'IPv4',
    endpoints: [],
  });
  store.sink('EndpointSlice').upsert(slice('web-abc', 'web'));
  store.sink('EndpointSlice').upsert(slice('other-abc', 'other'));
  assert.deepEqual(changed(), ['EndpointSlice/app/web-abc', 'Secret/app/web-tls', 'Service/app/web']);
  assert.deepEqual(
    store.ingressesUsingSecret('app/web-tls').map((i) => i.metadata?.name),
    ['web'],
  );
  assert.deepEqual(
    store.ingressesUsingService('app/web').map((i) => i.metadata?.name),
    ['web'],
  );
  assert.deepEqual(
    store.endpointSlicesOfService('app/web').map((s) => s.metadata?.name),
    ['web-abc'],
  );
  assert.deepEqual(
    store.endpointSlicesOfService('app/other').map((s) => s.metadata?.name),
    ['other-abc'],
  );
});

test('secrets named by auth annotations are indexed, with the configured prefix', () => {
  const { store } = storeWith({ annotationsPrefix: 'custom.example' });
  store.sink('IngressClass').upsert(nginxClass);
  store
    .sink('Ingress')
    .upsert(ingress('a', routed('web'), { 'custom.example/auth-secret': 'basic', 'custom.example/auth-tls-secret': 'other/ca' }));
  assert.equal(store.ingressesUsingSecret('app/basic').length, 1);
  assert.equal(store.ingressesUsingSecret('other/ca').length, 1);
  assert.equal(store.ingressesUsingSecret('app/ca').length, 0);
});

test('a ConfigMap counts when a served Ingress names it in auth-proxy-set-headers (an edit re-syncs it)', () => {
  const { store, changed } = storeWith();
  store.sink('IngressClass').upsert(nginxClass);
  store.sink('Ingress').upsert(ingress('web', routed('web'), { 'nginx.ingress.kubernetes.io/auth-proxy-set-headers': 'auth-headers' }));
  changed();
  const configMap = (namespace: string, name: string) => ({ metadata: { name, namespace, resourceVersion: '1' }, data: { 'X-A': 'a' } });
  store.sink('ConfigMap').upsert(configMap('app', 'auth-headers'));
  store.sink('ConfigMap').upsert(configMap('app', 'unrelated'));
  store.sink('ConfigMap').upsert(configMap('other', 'auth-headers'));
  assert.deepEqual(changed(), ['ConfigMap/app/auth-headers']);
  assert.deepEqual(
    store.ingressesUsingConfigMap('app/auth-headers').map((i) => i.metadata?.name),
    ['web'],
  );
});

test('a ConfigMap counts when a served Ingress names it in custom-headers (an edit re-syncs it)', () => {
  const { store, changed } = storeWith();
  store.sink('IngressClass').upsert(nginxClass);
  store.sink('Ingress').upsert(ingress('web', routed('web'), { 'nginx.ingress.kubernetes.io/custom-headers': 'other/response-headers' }));
  changed();
  const configMap = (namespace: string, name: string) => ({ metadata: { name, namespace, resourceVersion: '1' }, data: { 'X-A': 'a' } });
  store.sink('ConfigMap').upsert(configMap('other', 'response-headers'));
  store.sink('ConfigMap').upsert(configMap('app', 'response-headers'));
  assert.deepEqual(changed(), ['ConfigMap/other/response-headers']);
});

test('a ConfigMap counts when a served Ingress names it in fastcgi-params-configmap (an edit re-syncs it)', () => {
  const { store, changed } = storeWith();
  store.sink('IngressClass').upsert(nginxClass);
  store.sink('Ingress').upsert(ingress('php', routed('php'), { 'nginx.ingress.kubernetes.io/fastcgi-params-configmap': 'php-params' }));
  changed();
  store.sink('ConfigMap').upsert({ metadata: { name: 'php-params', namespace: 'app', resourceVersion: '1' }, data: { A: 'a' } });
  store.sink('ConfigMap').upsert({ metadata: { name: 'unrelated', namespace: 'app', resourceVersion: '1' }, data: { A: 'a' } });
  assert.deepEqual(changed(), ['ConfigMap/app/php-params']);
  assert.deepEqual(
    store.ingressesUsingConfigMap('app/php-params').map((i) => i.metadata?.name),
    ['php'],
  );
});

test('--disable-catch-all hides Ingresses that only have a default backend', () => {
  const catchAll = ingress('all', { ingressClassName: 'nginx', defaultBackend: { service: { name: 'web', port: { number: 80 } } } });
  for (const disableCatchAll of [false, true]) {
    const { store } = storeWith({ disableCatchAll });
    store.sink('IngressClass').upsert(nginxClass);
    store.sink('Ingress').upsert(catchAll);
    assert.equal(store.ingresses().length, disableCatchAll ? 0 : 1);
  }
});

test('with a namespace selector, objects count only while their namespace is selected', () => {
  const { store, changed } = storeWith({ namespaceSelectorActive: true });
  store.sink('IngressClass').upsert(nginxClass);
  store.sink('Ingress').upsert(ingress('web', routed('web')));
  assert.equal(store.ingresses().length, 0);
  changed();
  const namespace = { metadata: { name: 'app', resourceVersion: '1' } };
  store.sink('Namespace').upsert(namespace);
  assert.equal(store.ingresses().length, 1);
  assert.deepEqual(changed(), ['Ingress/app/web', 'Namespace/app']);
  store.sink('Namespace').remove(namespace);
  assert.equal(store.ingresses().length, 0);
});

test('deleting a served Ingress is a change; its indexes are dropped', () => {
  const { store, changed } = storeWith();
  store.sink('IngressClass').upsert(nginxClass);
  const web = ingress('web', routed('web', 'tls'));
  store.sink('Ingress').upsert(web);
  changed();
  store.sink('Ingress').remove(web);
  assert.deepEqual(changed(), ['Ingress/app/web']);
  assert.equal(store.ingressesUsingSecret('app/tls').length, 0);
  assert.equal(store.ingress('app/web'), undefined);
});
