import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrefixDirs, prefixLayout } from '../../../src/dataplane/nginx/process/prefixLayout.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'portico-prefix-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string): number => statSync(path).mode & 0o777;

test('every path is absolute and inside the prefix', () => {
  const layout = prefixLayout('relative/prefix');
  const paths = [...Object.values(layout).filter((value): value is string => typeof value === 'string'), ...Object.values(layout.temp)];
  for (const path of paths) assert.ok(path.startsWith(`${layout.prefix}`) && layout.prefix.startsWith('/'), path);
  assert.equal(layout.configFile, join(layout.prefix, 'conf/nginx.conf'));
  assert.equal(layout.temp.clientBody, join(layout.prefix, 'tmp/client_body'));
});

test('a prefix nginx could misread is refused', () => {
  for (const prefix of ['/srv/$x', '/srv/a"b', '/srv/a\\b', '/srv/*', '/srv/a\nb']) {
    assert.throws(() => prefixLayout(prefix), /unsupported nginx prefix/, prefix);
  }
});

test('createPrefixDirs opens the way to tmp/ for workers and keeps certs/ private, even in a 0700 mkdtemp prefix', async () => {
  const layout = prefixLayout(dir);
  await createPrefixDirs(layout);
  assert.equal(mode(layout.prefix), 0o755);
  assert.equal(mode(layout.tempDir), 0o755);
  assert.equal(mode(join(layout.prefix, 'logs')), 0o755);
  assert.equal(mode(join(layout.prefix, 'conf')), 0o755);
  assert.equal(mode(layout.certificateDir), 0o700);
  await createPrefixDirs(layout); // again: nothing to do, nothing fails
});
