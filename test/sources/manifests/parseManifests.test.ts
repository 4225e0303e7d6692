import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifests, type ParsedManifests } from '../../../src/sources/manifests/parseManifests.js';

const file = 'manifests/app.yaml';

/** `Kind namespace/name` of each object, in order. */
function keys(parsed: ParsedManifests): string[] {
  return parsed.objects.map(({ kind, object }) => `${kind} ${object.metadata?.namespace ?? ''}/${object.metadata?.name}`);
}

function messages(parsed: ParsedManifests): string[] {
  return parsed.errors.map((error) => error.message);
}

const service = (name: string, extra = ''): string => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n${extra}`;

test('every document of a multi-document file is read; empty ones are skipped', () => {
  const text = [
    '# leading comment',
    '---',
    service('web'),
    '---',
    '---',
    '# only a comment',
    '---',
    'apiVersion: networking.k8s.io/v1',
    'kind: Ingress',
    'metadata: {name: web, namespace: shop}',
    'spec: {ingressClassName: nginx}',
    '---',
  ].join('\n');
  const parsed = parseManifests(text, file);
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(keys(parsed), ['Service default/web', 'Ingress shop/web']);
  const ingress = parsed.objects[1];
  if (ingress?.kind !== 'Ingress') return assert.fail('the second object is an Ingress');
  assert.deepEqual(ingress.object.spec, { ingressClassName: 'nginx' });
  assert.deepEqual(ingress.position, { file, document: 4, line: 12 });
});

test('an empty file has nothing and is not an error', () => {
  assert.deepEqual(parseManifests('', file), { objects: [], errors: [] });
  assert.deepEqual(parseManifests('# nothing yet\n', file), { objects: [], errors: [] });
});

test('List and FooList documents are expanded into their items', () => {
  const text = [
    'apiVersion: v1',
    'kind: List',
    'items:',
    '- apiVersion: v1',
    '  kind: ConfigMap',
    '  metadata: {name: settings, namespace: portico}',
    '- apiVersion: networking.k8s.io/v1',
    '  kind: IngressClass',
    '  metadata: {name: nginx}',
    '---',
    'apiVersion: v1',
    'kind: ServiceList',
    'items:',
    `- ${service('a').replaceAll('\n', '\n  ')}`,
    '---',
    'apiVersion: v1',
    'kind: SecretList',
    'items: null',
  ].join('\n');
  const parsed = parseManifests(text, file);
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(keys(parsed), ['ConfigMap portico/settings', 'IngressClass /nginx', 'Service default/a']);
  assert.deepEqual(parsed.objects[1]?.position, { file, document: 1, item: 2, line: 7 });
});

test('a bad item of a List is reported with its item number and line; the others load', () => {
  const text = ['kind: List', 'apiVersion: v1', 'items:', '- 42', `- ${service('ok').replaceAll('\n', '\n  ')}`].join('\n');
  const parsed = parseManifests(text, file);
  assert.deepEqual(keys(parsed), ['Service default/ok']);
  assert.deepEqual(messages(parsed), ['manifests/app.yaml:4 (document 1, item 1): not an object (found number 42)']);
});

test('a YAML syntax error names the file, document and line; other documents still load', () => {
  const text = [service('before'), '---', 'apiVersion: v1', 'kind: Service', 'metadata:', '  name: [broken', '---', service('after')].join(
    '\n',
  );
  const parsed = parseManifests(text, file);
  assert.deepEqual(keys(parsed), ['Service default/before', 'Service default/after']);
  assert.equal(parsed.errors.length, 1);
  const [error] = parsed.errors;
  assert.equal(error?.file, file);
  assert.equal(error?.document, 2);
  assert.equal(typeof error?.line, 'number');
  assert.match(error?.message ?? '', /^manifests\/app\.yaml:\d+:\d+ \(document 2\): YAML syntax error: /);
});

test('duplicate keys in a mapping are a syntax error', () => {
  const parsed = parseManifests(service('web', 'spec: {}\nspec: {}\n'), file);
  assert.deepEqual(parsed.objects, []);
  assert.match(messages(parsed)[0] ?? '', /^manifests\/app\.yaml:6:1 \(document 1\): YAML syntax error: Map keys must be unique/);
});

test('unsupported kinds, apiVersions and shapes are errors with their reason', () => {
  const documents = [
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}',
    'apiVersion: networking.k8s.io/v1beta1\nkind: Ingress\nmetadata: {name: old}',
    'kind: Service\nmetadata: {name: web}',
    'apiVersion: v1\nmetadata: {name: web}',
    'apiVersion: v1\nkind: Service\nmetadata: {namespace: shop}',
    'apiVersion: v1\nkind: Service',
    'apiVersion: v1\nkind: Service\nmetadata: {name: 8080}',
    'apiVersion: v1\nkind: Service\nmetadata: [a]',
    '- just\n- a list',
    'plain text',
  ];
  const parsed = parseManifests(documents.join('\n---\n'), file);
  assert.deepEqual(parsed.objects, []);
  assert.deepEqual(messages(parsed), [
    'manifests/app.yaml:1 (document 1): unsupported kind "Deployment" (Portico reads Ingress, IngressClass, Service, EndpointSlice, Secret, ConfigMap, Namespace)',
    'manifests/app.yaml:5 (document 2): unsupported apiVersion "networking.k8s.io/v1beta1" for Ingress (Portico reads networking.k8s.io/v1)',
    'manifests/app.yaml:9 (document 3): Service is missing apiVersion (want v1)',
    'manifests/app.yaml:12 (document 4): missing kind',
    'manifests/app.yaml:15 (document 5): Service is missing metadata.name',
    'manifests/app.yaml:19 (document 6): Service is missing metadata.name',
    'manifests/app.yaml:22 (document 7): Service metadata.name must be a string (found number 8080)',
    'manifests/app.yaml:26 (document 8): Service metadata is not an object',
    'manifests/app.yaml:30 (document 9): not an object (found a list)',
    'manifests/app.yaml:33 (document 10): not an object (found the string "plain text")',
  ]);
});

test('namespaced objects default to `default`; cluster-scoped objects lose any namespace', () => {
  const text = [
    service('web'),
    '---',
    'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, namespace: ignored}',
    '---',
    'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}',
    '---',
    'apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: web-1, namespace: ""}\naddressType: IPv4',
  ].join('\n');
  const parsed = parseManifests(text, file);
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(
    parsed.objects.map(({ object }) => object.metadata),
    [{ name: 'web', namespace: 'default' }, { name: 'shop' }, { name: 'nginx' }, { name: 'web-1', namespace: 'default' }],
  );
});

test('Secret stringData is folded into base64 data, winning over data', () => {
  const text = [
    'apiVersion: v1',
    'kind: Secret',
    'metadata: {name: creds}',
    'type: Opaque',
    'data: {user: YWRtaW4=, password: b2xk}',
    'stringData: {password: "s3cret é", token: abc}',
  ].join('\n');
  const parsed = parseManifests(text, file);
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(parsed.objects[0]?.object, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'creds', namespace: 'default' },
    type: 'Opaque',
    data: {
      user: 'YWRtaW4=',
      password: Buffer.from('s3cret é').toString('base64'),
      token: Buffer.from('abc').toString('base64'),
    },
  });
});

test('Secret data must be base64, as the API server demands', () => {
  const parsed = parseManifests('apiVersion: v1\nkind: Secret\nmetadata: {name: tls}\ndata: {tls.key: "-----BEGIN"}', file);
  assert.deepEqual(parsed.objects, []);
  assert.deepEqual(messages(parsed), [
    'manifests/app.yaml:1 (document 1): Secret tls: data["tls.key"] is not valid base64 (put plain text in stringData)',
  ]);
  const wrapped = parseManifests('apiVersion: v1\nkind: Secret\nmetadata: {name: ok}\ndata:\n  a: |\n    YWJj\n    ZA==\n', file);
  assert.deepEqual(wrapped.errors, [], 'line breaks inside base64 are allowed');
});

test('unquoted non-strings in annotations, labels and ConfigMap data are errors that say to quote them', () => {
  const text = [
    'apiVersion: networking.k8s.io/v1',
    'kind: Ingress',
    'metadata:',
    '  name: web',
    '  annotations:',
    '    nginx.ingress.kubernetes.io/ssl-redirect: false',
    '---',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata: {name: portico, labels: {tier: 1}}',
    '---',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata: {name: settings}',
    'data: {use-forwarded-headers: yes}',
  ].join('\n');
  assert.deepEqual(messages(parseManifests(text, file)), [
    'manifests/app.yaml:1 (document 1): Ingress web: metadata.annotations["nginx.ingress.kubernetes.io/ssl-redirect"] must be a string (found boolean false; quote it)',
    'manifests/app.yaml:8 (document 2): ConfigMap portico: metadata.labels["tier"] must be a string (found number 1; quote it)',
    'manifests/app.yaml:12 (document 3): ConfigMap settings: data["use-forwarded-headers"] must be a string (found boolean true; quote it)',
  ]);
});

test('YAML is read as kubectl reads it: 1.1 booleans, octals and merge keys, timestamps left as strings', () => {
  const text = [
    'apiVersion: discovery.k8s.io/v1',
    'kind: EndpointSlice',
    'metadata:',
    '  name: web-1',
    '  annotations: {deployed: 2024-05-01T10:00:00Z, window: 1:30}',
    'addressType: IPv4',
    'x-base: &base {addresses: [10.0.0.1], conditions: {ready: yes}}',
    'endpoints:',
    '- <<: *base',
    '  nodeName: node-a',
    'ports: [{port: 0755}]',
  ].join('\n');
  const parsed = parseManifests(text, file);
  assert.deepEqual(parsed.errors, []);
  const slice = parsed.objects[0];
  if (slice?.kind !== 'EndpointSlice') return assert.fail('an EndpointSlice is read');
  assert.deepEqual(slice.object.metadata?.annotations, { deployed: '2024-05-01T10:00:00Z', window: '1:30' });
  assert.deepEqual(slice.object.endpoints, [{ addresses: ['10.0.0.1'], conditions: { ready: true }, nodeName: 'node-a' }]);
  assert.deepEqual(slice.object.ports, [{ port: 493 }]);
});
