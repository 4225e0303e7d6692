// Certificates on disk for nginx: one file per certificate id (certificate
// then key), private to the controller (0600), written atomically, and
// removed once no server uses them.
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Certificate } from '../../model/types.js';

const SUFFIX = '.pem';

export function certificatePath(dir: string, id: string): string {
  return join(dir, `${id}${SUFFIX}`);
}

/** Writes the certificates not on disk yet and deletes those no longer listed (ids are content hashes). */
export async function syncCertificateFiles(dir: string, certificates: readonly Certificate[], keep: readonly string[] = []): Promise<void> {
  const wanted = new Map(certificates.map((certificate) => [`${certificate.id}${SUFFIX}`, certificate]));
  const present = new Set(await readdir(dir));
  for (const [file, certificate] of wanted) {
    if (present.has(file)) continue;
    const temporary = join(dir, `.${file}.tmp`);
    await writeFile(temporary, `${certificate.certificatePem.trimEnd()}\n${certificate.keyPem.trimEnd()}\n`, { mode: 0o600 });
    await rename(temporary, join(dir, file));
  }
  for (const file of present) {
    if (file.endsWith(SUFFIX) && !wanted.has(file) && !keep.includes(file)) await rm(join(dir, file), { force: true });
  }
}
