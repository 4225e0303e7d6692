import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KNOWN_ANNOTATIONS } from '../../../src/model/annotations/annotationRegistry.js';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

const errorPagesOf = (annotations: Record<string, string>, customHttpErrors: number[] = []) =>
  accepted(annotations, { customHttpErrors }).value.location.errorPages;

test('unset without custom-http-errors and default-backend', () => {
  assert.equal(errorPagesOf({}), undefined);
  assert.equal(errorPagesOf({ 'disable-proxy-intercept-errors': 'true' }), undefined);
  assert.equal(errorPagesOf({ 'custom-http-errors': ',' }), undefined);
});

test('custom-http-errors: statuses 400-599, spaces allowed, sorted and each once', () => {
  assert.deepEqual(errorPagesOf({ 'custom-http-errors': '503,404, 500 ,404,599,400' }), {
    codes: [400, 404, 500, 503, 599],
    interceptUpstream: true,
    global: false,
    defaultBackendService: undefined,
    defaultBackend: undefined,
  });
});

test('custom-http-errors refuses anything but statuses 400-599', () => {
  for (const value of ['399', '600', '200', '40', '4040', '404;', '404 500', 'abc', '-404', '4e2', '404,x', '$status', '404\u00a0500'])
    assertRefusedWith({ 'custom-http-errors': value }, [`${PREFIX}/custom-http-errors`, 'HTTP statuses from 400 to 599']);
});

test('disable-proxy-intercept-errors turns interception of upstream answers off', () => {
  assert.equal(errorPagesOf({ 'custom-http-errors': '404', 'disable-proxy-intercept-errors': 'true' })?.interceptUpstream, false);
  assert.equal(errorPagesOf({ 'custom-http-errors': '404', 'disable-proxy-intercept-errors': 'false' })?.interceptUpstream, true);
  assertRefusedWith({ 'disable-proxy-intercept-errors': 'yes' }, [`${PREFIX}/disable-proxy-intercept-errors`, '"true" or "false"']);
});

test('default-backend: a Service name (DNS-1035 label), resolved later by the model', () => {
  assert.deepEqual(errorPagesOf({ 'default-backend': 'error-pages' }), {
    codes: [],
    interceptUpstream: true,
    global: false,
    defaultBackendService: 'error-pages',
    defaultBackend: undefined,
  });
  assert.equal(errorPagesOf({ 'default-backend': 'a'.repeat(63) })?.defaultBackendService, 'a'.repeat(63));
});

test('default-backend refuses what is not a Service name of the Ingress namespace', () => {
  for (const value of [
    'other/svc',
    'Svc',
    '1svc',
    'svc-',
    'a'.repeat(64),
    'svc.example',
    'svc:80',
    'svc;',
    '"; } ssl_engine x; #',
    '$host',
  ])
    assertRefusedWith({ 'default-backend': value }, [`${PREFIX}/default-backend`, 'the name of a Service']);
});

test('all three are implemented with ingress-nginx risk level Low', () => {
  for (const name of ['custom-http-errors', 'disable-proxy-intercept-errors', 'default-backend']) {
    const known = KNOWN_ANNOTATIONS.get(name);
    assert.equal(known?.kind, 'implemented', name);
    assert.equal(known?.risk, 'Low', name);
  }
});

test("the ConfigMap's custom-http-errors apply where the annotation is unset or empty, always intercepted", () => {
  const fromConfigMap = {
    codes: [404, 502],
    interceptUpstream: true,
    global: true,
    defaultBackendService: undefined,
    defaultBackend: undefined,
  };
  assert.deepEqual(errorPagesOf({}, [404, 502]), fromConfigMap);
  assert.deepEqual(errorPagesOf({ 'custom-http-errors': ',' }, [404, 502]), fromConfigMap);
  assert.deepEqual(errorPagesOf({ 'disable-proxy-intercept-errors': 'true' }, [404, 502]), fromConfigMap);
  assert.deepEqual(errorPagesOf({ 'default-backend': 'errors' }, [404])?.global, true);
  assert.deepEqual(errorPagesOf({ 'custom-http-errors': '503' }, [404, 502]), {
    codes: [503],
    interceptUpstream: true,
    global: false,
    defaultBackendService: undefined,
    defaultBackend: undefined,
  });
});
