import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HOSTILE_STRINGS } from '../../dataplane/nginx/render/hostileValues.js';
import { accepted, assertRefusedWith } from './annotationTestSupport.js';

test('custom-headers names a ConfigMap, name or namespace/name; the model looks it up', () => {
  assert.equal(accepted({}).value.location.customHeaders, undefined);
  assert.deepEqual(accepted({ 'custom-headers': 'headers' }).value.location.customHeaders, {
    from: { namespace: undefined, name: 'headers' },
    headers: [],
    denied: undefined,
  });
  assert.deepEqual(accepted({ 'custom-headers': 'team/headers' }).value.location.customHeaders?.from, {
    namespace: 'team',
    name: 'headers',
  });
});

test('a custom-headers value that is not an object reference refuses the Ingress', () => {
  for (const value of ['a/b/c', 'Headers', 'a b', '../x', ...HOSTILE_STRINGS.filter((value) => !/[\n\r\t]/.test(value))]) {
    assertRefusedWith({ 'custom-headers': value }, ['custom-headers']);
  }
});

test('custom-headers is Medium risk, as in ingress-nginx', () => {
  assertRefusedWith({ 'custom-headers': 'headers' }, ['custom-headers', 'risk level Medium'], { annotationsRiskLevel: 'Low' });
});
