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

test('a target lists each referrer once, from one referrer to several and back to none', () => {
  const index = new ReferenceIndex();
  const referrers = () => [...index.referrersOf('t')].sort();
  index.set('a', ['t', 't']);
  assert.deepEqual(referrers(), ['a']);
  assert.deepEqual(index.referencedBy('a'), ['t']);
  index.set('b', ['t']);
  index.set('a', ['t', 'u']);
  assert.deepEqual(referrers(), ['a', 'b']);
  index.delete('b');
  assert.deepEqual(referrers(), ['a']);
  index.set('c', ['t']);
  index.delete('a');
  assert.deepEqual(referrers(), ['c']);
  assert.deepEqual([...index.referrersOf('u')], []);
  index.delete('c');
  assert.deepEqual(referrers(), []);
});
