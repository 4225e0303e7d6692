import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { ChangeFeed } from '../../src/store/changeFeed.js';

function withMockTimers(body: () => Promise<void>): () => Promise<void> {
  return async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    try {
      await body();
    } finally {
      mock.timers.reset();
    }
  };
}

/** Lets promise callbacks run between timer ticks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test(
  'a burst of changes is delivered once, after the quiet period',
  withMockTimers(async () => {
    const feed = new ChangeFeed({ quietMs: 50, maxDelayMs: 1000 });
    const received: { batch?: ReadonlySet<string> } = {};
    void feed.next().then((keys) => (received.batch = keys));
    const batchSize = () => received.batch?.size;
    for (let i = 0; i < 100; i++) {
      feed.push(`Ingress/ns/i${i % 40}`);
      mock.timers.tick(5);
      await settle();
    }
    assert.equal(batchSize(), undefined, 'nothing delivered while changes keep arriving within the quiet period');
    mock.timers.tick(50);
    await settle();
    assert.equal(batchSize(), 40, 'duplicate keys collapse');
    assert.equal(feed.pendingCount, 0);
  }),
);

test(
  'a steady stream is still delivered after maxDelay',
  withMockTimers(async () => {
    const feed = new ChangeFeed({ quietMs: 50, maxDelayMs: 200 });
    const batches: number[] = [];
    const consume = async () => {
      for (;;) batches.push((await feed.next()).size);
    };
    void consume();
    for (let i = 0; i < 100; i++) {
      feed.push(`k${i}`);
      mock.timers.tick(10);
      await settle();
    }
    assert.ok(batches.length >= 4 && batches.length <= 6, `batches: ${batches.join(',')}`);
    for (const size of batches) assert.ok(size <= 21, `batch of ${size} exceeds maxDelay`);
  }),
);

test(
  'changes arriving while the consumer is busy are handed over at once on the next call',
  withMockTimers(async () => {
    const feed = new ChangeFeed({ quietMs: 50, maxDelayMs: 1000 });
    feed.push('a');
    mock.timers.tick(60);
    feed.push('b');
    const keys = await feed.next();
    assert.deepEqual([...keys].sort(), ['a', 'b']);
  }),
);

test(
  'discarded changes are never delivered; a waiting next() gets the changes after them',
  withMockTimers(async () => {
    const feed = new ChangeFeed({ quietMs: 50, maxDelayMs: 1000 });
    feed.push('Ingress/ns/before-1');
    mock.timers.tick(60); // due, not yet taken
    await settle();
    feed.push('Ingress/ns/before-2');
    const received: { batch?: ReadonlySet<string> } = {};
    void feed.next().then((keys) => (received.batch = keys));
    await settle();
    assert.deepEqual([...(received.batch ?? [])], ['Ingress/ns/before-1', 'Ingress/ns/before-2'], 'a due batch is taken at once');

    const next: { batch?: ReadonlySet<string> } = {};
    void feed.next().then((keys) => (next.batch = keys));
    feed.push('Ingress/ns/read-1');
    feed.discardPending();
    assert.equal(feed.pendingCount, 0);
    mock.timers.tick(2000);
    await settle();
    assert.equal(next.batch, undefined, 'nothing delivered for the discarded change');
    feed.push('Ingress/ns/after');
    mock.timers.tick(50);
    await settle();
    assert.deepEqual([...(next.batch ?? [])], ['Ingress/ns/after']);
  }),
);
