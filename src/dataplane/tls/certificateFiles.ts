// Certificates on disk for nginx: one file per certificate id (certificate
// then key), private to the controller (0600), written atomically. Ids are
// content hashes, so a file never changes; files are removed only after a
// configuration that no longer names them is running.
import { access, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Certificate } from '../../model/types.js';

/** Writes the certificates not on disk yet. */
export async function writeCertificateFiles(
  certificates: readonly Certificate[],
  pathOf: (id: string) => string,
): Promise<void> {
  for (const certificate of certificates) {
    const path = pathOf(certificate.id);
    const temporary = join(path, '..', `.${basename(path)}.tmp`);
    if (await exists(path)) continue; // same id, same content
    await writeFile(temporary, `${certificate.certificatePem.trimEnd()}\n${certificate.keyPem.trimEnd()}\n`, { mode: 0o600 });
    await rename(temporary, path);
  }
}

/** Deletes the `.pem` files of `dir` that are neither in use nor listed in `keep` (absolute paths). */
export async function removeUnusedCertificateFiles(dir: string, inUse: readonly string[]): Promise<void> {
  const keep = new Set(inUse);
  for (const file of await readdir(dir)) {
    const path = join(dir, file);
    if (file.endsWith('.pem') && !keep.has(path)) await rm(path, { force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
