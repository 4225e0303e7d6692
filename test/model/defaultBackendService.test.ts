// default-backend's Service as the model reads it: its first port becomes a
// backend with its ready endpoints; a missing Service or one without ports
// is a Warning and leaves the annotation without effect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_BACKEND_UNUSABLE } from '../../src/model/defaultBackendService.js';
import { annotated, backendOf, build, ingress, problemsOf, service, slice, world } from './modelTestSupport.js';

const withDefaultBackend = (annotations: Record<string, string> = {}) =>
  annotated(ingress('web', 'h', [['/api', 'Prefix', 'web']]), { 'default-backend': 'errors', ...annotations });

function errorPagesOf(result: ReturnType<typeof build>) {
  return result.configuration.servers.find((server) => server.hostname === 'h')?.locations.find((location) => location.path === '/api')
    ?.annotations.errorPages;
}

test("the Service's first port becomes a backend with its endpoints, named in the location's error pages", () => {
  const lookup = world(
    [
      service('web', [{ port: 80 }]),
      service('errors', [
        { name: 'http', port: 8081 },
        { name: 'other', port: 9000 },
      ]),
    ],
    [slice('errors', [['10.0.0.7']], [{ name: 'http', port: 3000 }])],
  );
  const result = build([withDefaultBackend({ 'custom-http-errors': '404' })], lookup);
  assert.deepEqual(problemsOf(result), []);
  assert.equal(errorPagesOf(result)?.defaultBackend, 'app/errors:8081');
  assert.deepEqual(backendOf(result, 'app/errors:8081')?.endpoints, [{ address: '10.0.0.7', port: 3000 }]);
});

test('a missing Service, or one without ports, is a Warning and no backend', () => {
  for (const services of [[], [service('errors', [])]]) {
    const result = build([withDefaultBackend()], world(services));
    assert.deepEqual(problemsOf(result), [`web ${DEFAULT_BACKEND_UNUSABLE}`]);
    assert.match(result.problems[0]?.message ?? '', /default-backend: Service app\/errors (not found|has no ports)/);
    assert.equal(result.problems[0]?.severity, 'warning');
    assert.equal(errorPagesOf(result)?.defaultBackend, undefined);
    assert.ok(!result.configuration.backends.some((backend) => backend.service.name === 'errors'));
  }
});

test('the Service is looked up in the Ingress namespace only', () => {
  const elsewhere = { metadata: { name: 'errors', namespace: 'other' }, spec: { ports: [{ port: 80 }] } };
  const result = build([withDefaultBackend()], world([elsewhere]));
  assert.deepEqual(problemsOf(result), [`web ${DEFAULT_BACKEND_UNUSABLE}`]);
});
