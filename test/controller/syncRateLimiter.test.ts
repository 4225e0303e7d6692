import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { SyncRateLimiter } from '../../src/controller/syncRateLimiter.js';

test('the first sync is immediate; the next waits 1/rate seconds', () => {
  mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  try {
    const limiter = new SyncRateLimiter(0.5);
    assert.equal(limiter.delay(), 0);
    void limiter.acquire();
    assert.equal(limiter.delay(), 2000);
    mock.timers.tick(1500);
    assert.equal(limiter.delay(), 500);
    mock.timers.tick(500);
    assert.equal(limiter.delay(), 0);
  } finally {
    mock.timers.reset();
  }
});

test('acquire waits out the interval', async () => {
  const limiter = new SyncRateLimiter(20);
  await limiter.acquire();
  const started = Date.now();
  await limiter.acquire();
  assert.ok(Date.now() - started >= 45, 'second acquire waited about 50 ms');
});
