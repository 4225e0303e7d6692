import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseObjectReference, resolveObjectReference } from '../../src/model/objectReference.js';

test('an object reference is a name or namespace/name of DNS names', () => {
  assert.deepEqual(parseObjectReference('basic-auth'), { ok: true, value: { namespace: undefined, name: 'basic-auth' } });
  assert.deepEqual(parseObjectReference('team-a/ca.v1'), { ok: true, value: { namespace: 'team-a', name: 'ca.v1' } });
  for (const bad of ['', '/x', 'x/', 'a/b/c', 'Upper', 'a b', 'ns/../x', 'x;', `${'a'.repeat(64)}/x`, '$secret']) {
    assert.equal(parseObjectReference(bad).ok, false, bad);
  }
});

test('another namespace is used only when allow-cross-namespace-resources is true', () => {
  const own = { namespace: undefined, name: 's' };
  const other = { namespace: 'other', name: 's' };
  assert.deepEqual(resolveObjectReference(own, 'team', { allowCrossNamespaceResources: false }), { ok: true, key: 'team/s' });
  assert.deepEqual(resolveObjectReference({ namespace: 'team', name: 's' }, 'team', { allowCrossNamespaceResources: false }), {
    ok: true,
    key: 'team/s',
  });
  const refused = resolveObjectReference(other, 'team', { allowCrossNamespaceResources: false });
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.reason, /allow-cross-namespace-resources/);
  assert.deepEqual(resolveObjectReference(other, 'team', { allowCrossNamespaceResources: true }), { ok: true, key: 'other/s' });
});
