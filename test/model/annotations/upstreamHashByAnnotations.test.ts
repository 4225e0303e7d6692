import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

test('no upstream-hash-by: no consistent hashing', () => {
  assert.equal(accepted({}).value.balancing.hashBy, undefined);
});

test('upstream-hash-by takes nginx variable expressions; the subset is off, of 3, by default', () => {
  for (const key of [
    '$request_uri',
    '$request_uri$host',
    '${request_uri}-text-value',
    '$cookie_session_id',
    '$arg_tenant:$remote_addr',
    '$http_x_user/v1.2',
    '$1',
    'static_key',
  ]) {
    assert.deepEqual(accepted({ 'upstream-hash-by': key }).value.balancing.hashBy, { key, subset: false, subsetSize: 3 }, key);
  }
});

test('upstream-hash-by refuses anything but variable references and plain literal text', () => {
  for (const key of [
    '$',
    '$$host',
    '${}',
    '${host',
    '$host}',
    '${request-uri}',
    '{host}',
    '$host;',
    '$host $uri',
    '"$host"',
    "'$host'",
    '$host\\',
    '$host,$uri',
    '$host%00',
    `$${'a'.repeat(256)}`,
  ]) {
    assertRefusedWith({ 'upstream-hash-by': key }, [`${PREFIX}/upstream-hash-by`, 'an nginx variable expression']);
  }
  assertRefusedWith({ 'upstream-hash-by': '$host\n$uri' }, ['control character']);
});

test('upstream-hash-by-subset and its size', () => {
  const subset = (annotations: Record<string, string>) =>
    accepted({ 'upstream-hash-by': '$remote_addr', ...annotations }).value.balancing.hashBy;
  assert.deepEqual(subset({ 'upstream-hash-by-subset': 'true' }), { key: '$remote_addr', subset: true, subsetSize: 3 });
  assert.deepEqual(subset({ 'upstream-hash-by-subset': 'true', 'upstream-hash-by-subset-size': '5' }), {
    key: '$remote_addr',
    subset: true,
    subsetSize: 5,
  });
  for (const size of ['0', '-1', '1001', '2.5', 'three']) {
    assertRefusedWith({ 'upstream-hash-by-subset-size': size }, ['upstream-hash-by-subset-size', 'an integer from 1 to 1000']);
  }
  assertRefusedWith({ 'upstream-hash-by-subset': 'yes' }, ['upstream-hash-by-subset', '"true" or "false"']);
});

test('subset settings without what they modify are ignored with a warning', () => {
  const alone = accepted({ 'upstream-hash-by-subset': 'true', 'upstream-hash-by-subset-size': '4' });
  assert.equal(alone.value.balancing.hashBy, undefined);
  assert.deepEqual(alone.warnings, [
    `annotation ${PREFIX}/upstream-hash-by-subset: ignored: it has no effect without upstream-hash-by`,
    `annotation ${PREFIX}/upstream-hash-by-subset-size: ignored: it has no effect without upstream-hash-by`,
  ]);
  const sizeOnly = accepted({ 'upstream-hash-by': '$uri', 'upstream-hash-by-subset-size': '4' });
  assert.deepEqual(sizeOnly.warnings, [
    `annotation ${PREFIX}/upstream-hash-by-subset-size: ignored: it has no effect unless upstream-hash-by-subset is "true"`,
  ]);
});

test('upstream-hash-by is High risk: admitted at the default level High, refused at Medium', () => {
  assert.equal(accepted({ 'upstream-hash-by': '$uri' }, { annotationsRiskLevel: 'High' }).value.balancing.hashBy?.key, '$uri');
  assertRefusedWith({ 'upstream-hash-by': '$uri' }, [`${PREFIX}/upstream-hash-by`, 'risk level High', 'annotations-risk-level Medium'], {
    annotationsRiskLevel: 'Medium',
  });
});

test('the subset settings are Low risk', () => {
  const { value } = accepted({ 'upstream-hash-by-subset': 'true', 'upstream-hash-by-subset-size': '2' }, { annotationsRiskLevel: 'Low' });
  assert.equal(value.balancing.hashBy, undefined);
});
