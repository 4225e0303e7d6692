import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
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
  const paths = [
    ...Object.values(layout).filter((value): value is string => typeof value === 'string'),
    ...(Object.values(layout.temp) as string[]),
  ];
  for (const path of paths) assert.ok(path.startsWith(`${layout.prefix}`) && layout.prefix.startsWith('/'), path);
  assert.equal(layout.configFile, join(layout.prefix, 'conf/nginx.conf'));
  assert.equal(layout.temp.clientBody, join(layout.prefix, 'tmp/client_body'));
});

test('a prefix nginx could misread is refused', () => {
  for (const prefix of ['/srv/$x', '/srv/a"b', '/srv/a\\b', '/srv/*', '/srv/a\nb']) {
    assert.throws(() => prefixLayout(prefix), /unsupported nginx prefix/, prefix);
  }
});

test('a prefix too long for its unix socket (sun_path: 107 bytes and a NUL) is refused', () => {
  const fits = `/${'p'.repeat(107 - '/run/controller/configuration.sock'.length - 1)}`;
  assert.equal(prefixLayout(fits).configurationSocket.length, 107);
  assert.throws(() => prefixLayout(`${fits}p`), /is too long: its socket .* exceeds 107 bytes/);
});

test('createPrefixDirs opens the way to tmp/ for workers and keeps certs/ private, even in a 0700 mkdtemp prefix', async () => {
  const layout = prefixLayout(dir);
  await createPrefixDirs(layout);
  assert.equal(mode(layout.prefix), 0o755);
  assert.equal(mode(layout.tempDir), 0o755);
  assert.equal(mode(join(layout.prefix, 'logs')), 0o755);
  assert.equal(mode(join(layout.prefix, 'conf')), 0o755);
  assert.equal(mode(layout.certificateDir), 0o700);
  assert.equal(mode(layout.secretFileDir), 0o700);
  assert.equal(mode(layout.socketDir), 0o755);
  await createPrefixDirs(layout); // again: nothing to do, nothing fails
});

test(
  "createPrefixDirs refuses a prefix nginx's workers could not reach (a folder above it without o+x), when run as root",
  { skip: process.getuid?.() !== 0 && 'workers run as this user' },
  async () => {
    const layout = prefixLayout(join(dir, 'below', 'nginx'));
    await chmod(dir, 0o755);
    await mkdir(join(dir, 'below'), { mode: 0o700 });
    await chmod(join(dir, 'below'), 0o700);
    await assert.rejects(createPrefixDirs(layout), new RegExp(`cannot reach ${layout.prefix}: ${join(dir, 'below')} has mode 700`));
    await chmod(join(dir, 'below'), 0o711);
    await createPrefixDirs(layout);
  },
);
