import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlLog } from '../../../src/dataplane/nginx/process/controlLog.js';

let dir: string;
let log: ControlLog;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'portico-control-log-'));
  log = new ControlLog(join(dir, 'control.log'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const never = (): boolean => false;
const soon = (): number => Date.now() + 2000;

test('a follower reads only what is appended after it was created, line by line', async () => {
  writeFileSync(log.path, 'before\n');
  const follower = await log.follow();
  try {
    appendFileSync(log.path, 'one\ntwo\nthr');
    setTimeout(() => appendFileSync(log.path, 'ee\nfour\n'), 50);
    const read = await follower.readUntil((line) => line === 'three', soon(), never);
    assert.deepEqual(read, { lines: ['one', 'two', 'three'], end: 'found' });
  } finally {
    await follower.close();
  }
});

test('lines read past a match are returned by the next read', async () => {
  await log.clear();
  const follower = await log.follow();
  try {
    appendFileSync(log.path, 'reconfiguring\nstart worker processes\ndone\n');
    assert.deepEqual(await follower.readUntil((line) => line === 'reconfiguring', soon(), never), {
      lines: ['reconfiguring'],
      end: 'found',
    });
    assert.deepEqual(await follower.readUntil((line) => line === 'done', soon(), never), {
      lines: ['start worker processes', 'done'],
      end: 'found',
    });
  } finally {
    await follower.close();
  }
});

test('a read ends at its deadline or when interrupted, with what it read', async () => {
  await log.clear();
  const follower = await log.follow();
  try {
    appendFileSync(log.path, 'partial\n');
    assert.deepEqual(await follower.readUntil(() => false, Date.now() + 60, never), { lines: ['partial'], end: 'deadline' });
    appendFileSync(log.path, 'last words\n');
    assert.deepEqual(
      await follower.readUntil(
        () => false,
        soon(),
        () => true,
      ),
      { lines: ['last words'], end: 'interrupted' },
    );
  } finally {
    await follower.close();
  }
});

test('trim empties the log only beyond the size given', async () => {
  writeFileSync(log.path, 'x'.repeat(100));
  await log.trim(100);
  assert.equal(statSync(log.path).size, 100);
  await log.trim(99);
  assert.equal(statSync(log.path).size, 0);
});
