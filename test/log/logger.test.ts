import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger, levelForVerbosity } from '../../src/log/logger.js';

test("klog's -v maps to pino levels: 0-1 info, 2-4 debug, 5+ trace", () => {
  assert.deepEqual([0, 1, 2, 4, 5, 9].map(levelForVerbosity), ['info', 'info', 'debug', 'debug', 'trace', 'trace']);
});

test('lines are JSON with a level label; debug lines appear only from -v=2', () => {
  for (const [verbosity, expected] of [
    [1, ['info']],
    [2, ['debug', 'info']],
  ] as const) {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    const logger = createLogger(verbosity, sink);
    logger.debug('detail');
    logger.info('fact');
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { level: string }).level),
      expected,
    );
  }
});
