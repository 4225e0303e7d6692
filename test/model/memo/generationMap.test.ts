import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GenerationMap } from '../../../src/model/memo/generationMap.js';

test('a run keeps what it kept and drops what it did not, whatever the last run kept', () => {
  const map = new GenerationMap<string, number>();
  map.keep('a', 1);
  map.keep('b', 2);
  map.rotate();
  assert.equal(map.size, 2);
  assert.equal(map.get('a'), 1);
  // The next run keeps a (with a new value) and c, not b.
  map.keep('a', 10);
  map.keep('c', 3);
  map.rotate();
  assert.deepEqual([map.get('a'), map.get('b'), map.get('c'), map.size], [10, undefined, 3, 2]);
  // A run that keeps everything of the last one drops nothing; one that keeps nothing drops all.
  map.keep('a', 10);
  map.keep('c', 3);
  map.rotate();
  assert.equal(map.size, 2);
  map.rotate();
  assert.deepEqual([map.get('a'), map.get('c'), map.size], [undefined, undefined, 0]);
});

test('what a run that did not end kept lasts through the next run', () => {
  const map = new GenerationMap<string, number>();
  map.keep('a', 1);
  // No rotate: the run failed. The next one keeps only b.
  map.keep('b', 2);
  map.rotate();
  assert.deepEqual([map.get('a'), map.get('b')], [1, 2]);
  map.keep('b', 2);
  map.rotate();
  assert.deepEqual([map.get('a'), map.get('b'), map.size], [undefined, 2, 1]);
});
