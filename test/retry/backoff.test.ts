import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay } from '../../src/retry/backoff.js';

const policy = { initialMs: 100, maxMs: 1000 };

test('backoff doubles per attempt within equal-jitter bounds', () => {
  assert.equal(
    backoffDelay(1, policy, () => 0),
    50,
  );
  assert.equal(
    backoffDelay(1, policy, () => 1),
    100,
  );
  assert.equal(
    backoffDelay(2, policy, () => 0),
    100,
  );
  assert.equal(
    backoffDelay(3, policy, () => 1),
    400,
  );
});

test('backoff is capped at maxMs however many attempts failed', () => {
  assert.equal(
    backoffDelay(50, policy, () => 1),
    1000,
  );
  assert.equal(
    backoffDelay(50, policy, () => 0),
    500,
  );
});

test('jitter spreads delays of the same attempt', () => {
  const delays = new Set([0, 0.25, 0.5, 0.75].map((r) => backoffDelay(4, policy, () => r)));
  assert.equal(delays.size, 4);
});
