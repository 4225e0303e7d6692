// Configuration.secretFiles on disk: each written once (0600, by its id, which
// changes with its content) before an nginx.conf naming it is loaded, and
// removed once no nginx.conf that serves or may serve again names it.
import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SecretFile } from '../../../model/types.js';

/** Writes the files of `files` that `directory` does not hold yet; atomically, so nginx never reads half a file. */
export async function writeSecretFiles(directory: string, files: readonly SecretFile[]): Promise<void> {
  const present = new Set(await readdir(directory));
  for (const file of files) {
    if (present.has(file.id)) continue;
    const partial = join(directory, `.${file.id}.${randomBytes(4).toString('hex')}`);
    const contents = file.encoding === 'base64' ? Buffer.from(file.contents, 'base64') : file.contents;
    await writeFile(partial, contents, { mode: 0o600, flag: 'wx' });
    await rename(partial, join(directory, file.id));
  }
}

/** Removes every file of `directory` that none of `keep` names (left-over partial writes included). */
export async function pruneSecretFiles(directory: string, keep: readonly (readonly SecretFile[])[]): Promise<void> {
  const wanted = new Set(keep.flatMap((files) => files.map((file) => file.id)));
  for (const name of await readdir(directory)) {
    if (!wanted.has(name)) await rm(join(directory, name), { force: true });
  }
}
