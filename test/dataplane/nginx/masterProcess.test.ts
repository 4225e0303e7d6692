import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MasterProcess } from '../../../src/dataplane/nginx/process/masterProcess.js';

test('a master that cannot be started is the one rejection of spawn(), not also an unhandled rejection', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const path = process.env['PATH'];
  process.env['PATH'] = '/nonexistent'; // spawn() finds setpriv through PATH: now it cannot
  try {
    await assert.rejects(MasterProcess.spawn('/usr/sbin/nginx', ['-v']), /cannot start nginx \(\/usr\/sbin\/nginx\): spawn setpriv ENOENT/);
    // Node reports the rejections nobody handled once the microtasks have run, before the next macrotask.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.env['PATH'] = path;
    process.off('unhandledRejection', onUnhandled);
  }
  assert.deepEqual(unhandled, []);
});
