import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { parseOpenFilesLimit, readOpenFilesLimit } from '../../../src/dataplane/nginx/openFilesLimit.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

test('the hard limit of "Max open files"; none when it is unlimited or missing', () => {
  assert.equal(parseOpenFilesLimit(LIMITS), 524288);
  assert.equal(parseOpenFilesLimit(LIMITS.replace('524288', 'unlimited')), undefined);
  assert.equal(parseOpenFilesLimit('Max cpu time unlimited unlimited seconds\n'), undefined);
});

test("this process's limit, as /proc/self/limits shows it", async () => {
  const line = (await readFile('/proc/self/limits', 'utf8')).split('\n').find((text) => text.startsWith('Max open files'));
  assert.ok(line);
  assert.equal(await readOpenFilesLimit(), Number(line.split(/\s+/)[4]));
});
