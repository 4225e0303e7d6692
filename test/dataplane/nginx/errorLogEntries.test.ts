import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeFailures,
  describeWarnings,
  isLogged,
  parseErrorLog,
  parseErrorLogLine,
} from '../../../src/dataplane/nginx/process/errorLogEntries.js';

test('an error log line yields its level, process and message', () => {
  assert.deepEqual(parseErrorLogLine('2026/11/29 07:59:25 [notice] 26418#26418: start worker processes'), {
    level: 'notice',
    pid: 26418,
    message: 'start worker processes',
  });
  assert.equal(parseErrorLogLine('stack traceback:'), undefined);
});

test('lines that do not start an entry continue the previous message', () => {
  const entries = parseErrorLog([
    'stray line before any entry',
    '2026/11/29 07:59:25 [error] 7#7: *3 lua entry thread aborted: runtime error',
    'stack traceback:',
    '2026/11/29 07:59:26 [notice] 1#1: reconfiguring',
  ]);
  assert.deepEqual(entries, [
    { level: 'error', pid: 7, message: '*3 lua entry thread aborted: runtime error\nstack traceback:' },
    { level: 'notice', pid: 1, message: 'reconfiguring' },
  ]);
});

test("failures are the master's error-level entries, each once", () => {
  const entries = parseErrorLog([
    '2026/11/29 07:59:29 [notice] 10#10: reconfiguring',
    '2026/11/29 07:59:29 [emerg] 10#10: bind() to 127.0.0.1:1 failed (98: Address already in use)',
    '2026/11/29 07:59:29 [notice] 10#10: try again to bind() after 500ms',
    '2026/11/29 07:59:29 [emerg] 10#10: bind() to 127.0.0.1:1 failed (98: Address already in use)',
    '2026/11/29 07:59:29 [error] 11#11: *1 upstream timed out',
    '2026/11/29 07:59:29 [emerg] 10#10: still could not bind()',
  ]);
  assert.equal(
    describeFailures(entries, 10),
    '[emerg] bind() to 127.0.0.1:1 failed (98: Address already in use)\n[emerg] still could not bind()',
  );
  assert.equal(describeFailures(entries, 12), '');
});

test("warnings are the given process's warn-level entries, each once, apart from its failures", () => {
  const entries = parseErrorLog([
    '2026/05/01 12:00:00 [warn] 10#10: conflicting server name "a.example" on 0.0.0.0:80, ignored',
    '2026/05/01 12:00:00 [warn] 10#10: conflicting server name "a.example" on 0.0.0.0:80, ignored',
    '2026/05/01 12:00:00 [emerg] 10#10: still could not bind()',
    "2026/05/01 12:00:00 [warn] 11#11: a worker's warning",
    '2026/05/01 12:00:00 [notice] 10#10: start worker processes',
  ]);
  assert.equal(describeWarnings(entries, 10), '[warn] conflicting server name "a.example" on 0.0.0.0:80, ignored');
  assert.equal(describeWarnings(entries, 12), '');
});

test('isLogged matches the exact message of the given process', () => {
  const line = '2026/11/29 07:59:25 [notice] 26418#26418: signal 14 (SIGALRM) received from 100';
  assert.equal(isLogged(line, 26418, 'signal 14 (SIGALRM) received from 100'), true);
  assert.equal(isLogged(line, 26418, 'signal 14 (SIGALRM) received from 10'), false);
  assert.equal(isLogged(line, 26419, 'signal 14 (SIGALRM) received from 100'), false);
});
