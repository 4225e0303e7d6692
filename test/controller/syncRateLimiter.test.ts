import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { SyncRateLimiter } from '../../src/controller/syncRateLimiter.js';

test('the first sync is immediate; the next waits 1/rate seconds', () => {
  mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  try {
    const limiter = new SyncRateLimiter(0.5);
    assert.equal(limiter.delay(), 0);
    limiter.take();
    assert.equal(limiter.delay(), 2000);
    mock.timers.tick(1500);
    assert.equal(limiter.delay(), 500);
    mock.timers.tick(500);
    assert.equal(limiter.delay(), 0);
  } finally {
    mock.timers.reset();
  }
});

test('ready() waits out the interval after a taken token, and not otherwise', async () => {
  const limiter = new SyncRateLimiter(20);
  await limiter.ready();
  assert.equal(limiter.delay(), 0, 'waiting takes no token');
  limiter.take();
  const started = Date.now();
  await limiter.ready();
  assert.ok(Date.now() - started >= 45, 'ready() after take() waited about 50 ms');
});
