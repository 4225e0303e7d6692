import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LatestOnlyQueue } from '../../src/dataplane/latestOnlyQueue.js';

/** Work whose end the test decides: each call waits until `finish()` is called for its item. */
function controlledWork() {
  const started: string[] = [];
  const finishers = new Map<string, (value: string) => void>();
  const work = (item: string) =>
    new Promise<string>((resolve) => {
      started.push(item);
      finishers.set(item, resolve);
    });
  /** The queue starts a turn on a later turn of the event loop. */
  const whenStarted = async (item: string) => {
    for (let i = 0; i < 10 && !finishers.has(item); i++) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(finishers.has(item), `${item} was started`);
  };
  const finish = async (item: string) => {
    await whenStarted(item);
    finishers.get(item)?.(`done ${item}`);
  };
  return { started, work, finish, whenStarted };
}

test('one item at a time; of those waiting meanwhile only the newest runs, the others resolve as superseded', async () => {
  const { started, work, finish, whenStarted } = controlledWork();
  const queue = new LatestOnlyQueue(work, 'superseded');
  const first = queue.submit('a');
  await whenStarted('a');
  const second = queue.submit('b');
  const third = queue.submit('c');
  await finish('a');
  assert.equal(await first, 'done a');
  assert.equal(await second, 'superseded');
  await finish('c');
  assert.equal(await third, 'done c');
  assert.deepEqual(started, ['a', 'c']);
});

test('items submitted together: only the last runs', async () => {
  const { started, work, finish } = controlledWork();
  const queue = new LatestOnlyQueue(work, 'superseded');
  const submitted = [queue.submit('a'), queue.submit('b')];
  await finish('b');
  assert.deepEqual(await Promise.all(submitted), ['superseded', 'done b']);
  assert.deepEqual(started, ['b']);
});

test('an item submitted while another runs waits for it, and is the active one only during its own turn', async () => {
  const { started, work, finish, whenStarted } = controlledWork();
  const queue = new LatestOnlyQueue(work, 'superseded');
  const first = queue.submit('a');
  await whenStarted('a');
  assert.equal(queue.active, 'a');
  const second = queue.submit('b');
  assert.deepEqual(started, ['a'], 'b waits while a runs');
  await finish('a');
  await first;
  await finish('b');
  assert.equal(await second, 'done b');
  assert.equal(queue.active, undefined);
});

test('a failed item rejects its own promise only; the queue goes on', async () => {
  const queue = new LatestOnlyQueue(async (item: string) => {
    if (item === 'bad') throw new Error('refused');
    return `done ${item}`;
  }, 'superseded');
  const bad = queue.submit('bad');
  await assert.rejects(bad, /refused/);
  assert.equal(await queue.submit('good'), 'done good');
});

test('the work starts after the submitter has gone on, not within its turn of the event loop', async () => {
  const order: string[] = [];
  const queue = new LatestOnlyQueue(async (item: string) => {
    order.push(`work ${item}`);
    return item;
  }, 'superseded');
  const done = queue.submit('a');
  await Promise.resolve(); // the submitter's own continuation, as after `await dataPlane.apply(...)`
  await Promise.resolve();
  order.push('submitter');
  await done;
  assert.deepEqual(order, ['submitter', 'work a']);
});
