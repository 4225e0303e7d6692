import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/kube/objects.js';
import { accepted as acceptedAnnotations, assertRefusedWith } from './annotations/annotationTestSupport.js';
import { accepted, annotated, backendOf, build, ingress, problemsOf, service, slice, world } from './modelTestSupport.js';

const withClusterIp = (base: Service, clusterIP: string | undefined): Service => ({ ...base, spec: { ...base.spec, clusterIP } });
const web = (clusterIP: string | undefined = '10.0.0.17') => withClusterIp(service('web', [{ name: 'http', port: 80 }]), clusterIP);
const endpoints = slice('web', [['10.1.0.1'], ['10.1.0.2']], [{ name: 'http', port: 8080 }]);

test('service-upstream: the ClusterIP at the Service port is the one endpoint', () => {
  const result = build(
    [annotated(ingress('a', 'h', [['/', 'Prefix', 'web']]), { 'service-upstream': 'true' })],
    world([web()], [endpoints]),
  );
  assert.deepEqual(backendOf(result, 'app/web:80')?.endpoints, [{ address: '10.0.0.17', port: 80 }]);
  assert.equal(backendOf(result, 'app/web:80')?.balancing.serviceUpstream, true);
  assert.deepEqual(result.problems, []);
});

test('without it (or "false"), the endpoints', () => {
  for (const ing of [
    accepted(ingress('a', 'h', [['/', 'Prefix', 'web']])),
    annotated(ingress('b', 'h', [['/', 'Prefix', 'web']]), { 'service-upstream': 'false' }),
  ]) {
    const backend = backendOf(build([ing], world([web()], [endpoints])), 'app/web:80');
    assert.deepEqual(
      backend?.endpoints.map((endpoint) => endpoint.address),
      ['10.1.0.1', '10.1.0.2'],
    );
    assert.equal(backend?.balancing.serviceUpstream, undefined);
  }
});

test('the oldest Ingress routing to the backend decides, as for its balancing', () => {
  const older = accepted(ingress('older', 'a.example', [['/', 'Prefix', 'web']]));
  const newer = annotated(ingress('newer', 'b.example', [['/', 'Prefix', 'web']]), { 'service-upstream': 'true' });
  const result = build([newer, older], world([web()], [endpoints]));
  assert.equal(backendOf(result, 'app/web:80')?.endpoints.length, 2);
  assert.deepEqual(problemsOf(result), ['newer BalancingConflict']);
});

test('a headless or ExternalName Service keeps its endpoints, with a warning on the Ingress (as ingress-nginx logs an error)', () => {
  const external = withClusterIp(service('web', [{ name: 'http', port: 80 }], 'ExternalName', 'db.example.com'), undefined);
  for (const [target, reason] of [
    [web('None'), /a headless Service has no ClusterIP/],
    [web(''), /a headless Service has no ClusterIP/],
    [external, /an ExternalName Service has no ClusterIP/],
    [web('db.example.com'), /is not an IP address/],
  ] as const) {
    const result = build(
      [annotated(ingress('a', 'h', [['/', 'Prefix', 'web']]), { 'service-upstream': 'true' })],
      world([target], [endpoints]),
    );
    assert.ok((backendOf(result, 'app/web:80')?.endpoints.length ?? 0) > 0, 'the endpoints stay');
    assert.deepEqual(problemsOf(result), ['a ServiceUpstream']);
    assert.match(result.problems[0]?.message ?? '', reason);
    assert.match(result.problems[0]?.message ?? '', /proxying to the Service's endpoints instead/);
  }
});

test('a ClusterIP that is Portico itself is refused: no endpoint, and a warning', () => {
  const result = build(
    [annotated(ingress('a', 'h', [['/', 'Prefix', 'web']]), { 'service-upstream': 'true' })],
    world([withClusterIp(service('web', [{ name: 'http', port: 80 }]), '192.0.2.9')], [endpoints]),
    {
      endpoints: { guard: { porticoPorts: [80], interfaceAddresses: ['192.0.2.9'], refuseLoopbackEverywhere: false }, externalNames: true },
    },
  );
  assert.deepEqual(backendOf(result, 'app/web:80')?.endpoints, []);
  assert.deepEqual(problemsOf(result), ['a ServiceUpstream']);
  assert.match(result.problems[0]?.message ?? '', /ClusterIP refused: endpoint 192\.0\.2\.9:80/);
});

test('service-upstream is a boolean (Go ParseBool), Low risk; the ConfigMap key is the default', () => {
  for (const text of ['yes', 'on', '1.0', 'true;'])
    assertRefusedWith({ 'service-upstream': text }, ['service-upstream', '"true" or "false"']);
  assert.equal(acceptedAnnotations({ 'service-upstream': 'True' }, { annotationsRiskLevel: 'Low' }).value.balancing.serviceUpstream, true);
  assert.equal(acceptedAnnotations({}, { serviceUpstream: true }).value.balancing.serviceUpstream, true);
  assert.equal(acceptedAnnotations({ 'service-upstream': 'false' }, { serviceUpstream: true }).value.balancing.serviceUpstream, undefined);
});
