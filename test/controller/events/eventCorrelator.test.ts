import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventCorrelator } from '../../../src/controller/events/eventCorrelator.js';

const limits = { burst: 3, refillMs: 1000, cacheSize: 100 };

test('an object gets `burst` Events at once, then one per refill interval', () => {
  const correlator = new EventCorrelator(limits);
  const actions = [0, 0, 0, 0, 999, 1000, 1000, 1999, 2000, 2000].map((at, i) => correlator.observe('Ingress/ns/a', `e${i}`, at).action);
  assert.deepEqual(actions, ['create', 'create', 'create', 'drop', 'drop', 'create', 'drop', 'drop', 'create', 'drop']);
});

test('each object has its own bucket', () => {
  const correlator = new EventCorrelator(limits);
  for (let i = 0; i < 3; i++) correlator.observe('Ingress/ns/a', `a${i}`, 0);
  assert.equal(correlator.observe('Ingress/ns/a', 'a3', 0).action, 'drop');
  assert.equal(correlator.observe('Ingress/ns/b', 'b0', 0).action, 'create');
});

test('a full bucket does not bank time: after a long quiet spell the burst is `burst`, not more', () => {
  const correlator = new EventCorrelator(limits);
  correlator.observe('o', 'first', 0);
  const actions = Array.from({ length: 5 }, (_, i) => correlator.observe('o', `late${i}`, 60_000).action);
  assert.deepEqual(actions, ['create', 'create', 'create', 'drop', 'drop']);
});

test('an Event identical to one written increments its count instead of creating another', () => {
  const correlator = new EventCorrelator(limits);
  assert.deepEqual(correlator.observe('o', 'same', 0), { action: 'create' });
  correlator.created('same', 'ns', 'a.1');
  assert.deepEqual(correlator.observe('o', 'same', 0), { action: 'patch', namespace: 'ns', name: 'a.1', count: 2 });
  assert.deepEqual(correlator.observe('o', 'same', 0), { action: 'patch', namespace: 'ns', name: 'a.1', count: 3 });
  assert.equal(correlator.observe('o', 'same', 0).action, 'drop', 'patches spend tokens too');
});

test('a failed create is not remembered: the next identical Event is created again', () => {
  const correlator = new EventCorrelator(limits);
  correlator.observe('o', 'same', 0);
  assert.deepEqual(correlator.observe('o', 'same', 0), { action: 'create' });
});

test('the least recently used Event is forgotten beyond the cache size', () => {
  const correlator = new EventCorrelator({ burst: 100, refillMs: 1000, cacheSize: 2 });
  correlator.created('a', 'ns', 'a.1');
  correlator.created('b', 'ns', 'b.1');
  assert.equal(correlator.observe('o', 'a', 0).action, 'patch'); // a is now the most recent
  correlator.created('c', 'ns', 'c.1');
  assert.equal(correlator.observe('o', 'b', 0).action, 'create', 'b was the least recently used');
  assert.equal(correlator.observe('o', 'a', 0).action, 'patch');
});
