import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Shutdown } from '../../src/cli/shutdown.js';
import { silentLogger } from '../../src/log/logger.js';

function sequence(gracePeriodMs: number, postGracePeriodMs: number): { shutdown: Shutdown; log: string[]; at: (name: string) => number } {
  const shutdown = new Shutdown({ gracePeriodMs, postGracePeriodMs, logger: silentLogger() });
  const log: string[] = [];
  const times = new Map<string, number>();
  const startedAt = Date.now();
  const step =
    (name: string, fail = false) =>
    async () => {
      times.set(name, Date.now() - startedAt);
      log.push(name);
      if (fail) throw new Error(`${name} failed`);
    };
  // Added out of phase order on purpose: phases decide the order, not the calls.
  shutdown.add('release', 'close connections', step('close connections'));
  shutdown.add('stop-data-plane', 'quit nginx', step('quit nginx'));
  shutdown.add('stop-work', 'stop syncing', step('stop syncing'));
  shutdown.add('stop-work', 'clear status', step('clear status', true));
  return { shutdown, log, at: (name) => times.get(name) ?? NaN };
}

test('phases run in order, steps of a phase in the order added, and a failing step does not stop the others', async () => {
  const { shutdown, log } = sequence(0, 0);
  assert.equal(shutdown.started, false);
  const done = shutdown.run();
  assert.equal(shutdown.started, true, 'started at once, before any wait');
  assert.equal(await done, false, 'a step failed');
  assert.deepEqual(log, ['stop syncing', 'clear status', 'quit nginx', 'close connections']);
});

test('the grace period passes before any step; the exit waits the post grace period after nginx stopped', async () => {
  const { shutdown, at } = sequence(300, 400);
  const startedAt = Date.now();
  await shutdown.run();
  const total = Date.now() - startedAt;
  assert.ok(at('stop syncing') >= 290, `first step after ${at('stop syncing')} ms`);
  assert.ok(total - at('quit nginx') >= 390, `exit ${total - at('quit nginx')} ms after nginx stopped`);
  assert.ok(total < 300 + 400 + 500, `whole sequence ${total} ms`);
});

test('after a failed start both waits are skipped, and a second run() is the same run', async () => {
  const { shutdown, log } = sequence(5_000, 5_000);
  const startedAt = Date.now();
  const first = shutdown.run({ graceful: false });
  assert.equal(shutdown.run(), first);
  await first;
  assert.ok(Date.now() - startedAt < 1_000);
  assert.equal(log.length, 4);
});
