import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pruneSecretFiles, writeSecretFiles } from '../../../src/dataplane/nginx/process/secretFiles.js';
import { SecretFileSet } from '../../../src/model/secretFiles.js';

test('a SecretFileSet names each content once, by Secret, role and digest', () => {
  const set = new SecretFileSet();
  const a = set.add('team/ca', 'ca', 'PEM A');
  assert.equal(set.add('team/ca', 'ca', 'PEM A'), a);
  const b = set.add('team/ca', 'ca', 'PEM B');
  assert.notEqual(a, b);
  assert.match(a, /^team-ca-ca-[0-9a-f]{16}\.pem$/);
  assert.deepEqual(
    set.list().map((file) => file.id),
    [a, b].sort(),
  );
  assert.throws(() => set.add('../x', 'ca', 'PEM'));
  assert.throws(() => set.add('team/ca', 'c/a', 'PEM'));
});

test('secret files are written 0600 once and pruned when no configuration names them', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'portico-secret-files-'));
  try {
    const set = new SecretFileSet();
    set.add('team/ca', 'ca', 'PEM A');
    set.add('team/key', 'client', 'KEY');
    const files = set.list();
    await writeFile(join(directory, '.partial.tmp'), 'left over');
    await writeSecretFiles(directory, files);
    for (const file of files) {
      assert.equal(await readFile(join(directory, file.id), 'utf8'), file.contents);
      assert.equal((await stat(join(directory, file.id))).mode & 0o777, 0o600);
    }
    const [kept] = files;
    await pruneSecretFiles(directory, [[kept!]]);
    assert.deepEqual(await readdir(directory), [kept!.id]);
    // Written again only when missing: an existing file is not rewritten.
    await writeSecretFiles(directory, files);
    assert.deepEqual((await readdir(directory)).sort(), files.map((file) => file.id).sort());
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
