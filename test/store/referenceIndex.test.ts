import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReferenceIndex } from '../../src/store/referenceIndex.js';

test('references are queryable both ways and replaced on set', () => {
  const index = new ReferenceIndex();
  index.set('ing1', ['s1', 's2']);
  index.set('ing2', ['s2']);
  assert.deepEqual([...index.referrersOf('s2')].sort(), ['ing1', 'ing2']);
  index.set('ing1', ['s3']);
  assert.deepEqual([...index.referrersOf('s2')], ['ing2']);
  assert.deepEqual([...index.referrersOf('s1')], []);
  assert.deepEqual([...index.referencedBy('ing1')], ['s3']);
  index.delete('ing2');
  assert.deepEqual([...index.referrersOf('s2')], []);
});
