// ingress-nginx's "fake" certificate: what HTTPS clients get for a host with
// no valid certificate of its own and no --default-ssl-certificate.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const FAKE_CERTIFICATE_SUBJECT = 'Kubernetes Ingress Controller Fake Certificate';

/**
 * Creates `<dir>/fake.pem` (certificate + key, mode 0600) unless present;
 * returns its path. openssl is spawned before the first await, so the key is
 * made while the caller's thread goes on (the start reads its source meanwhile).
 */
export async function ensureFakeCertificate(dir: string): Promise<string> {
  const path = join(dir, 'fake.pem');
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keyFile = join(dir, 'fake.key.tmp');
  const certFile = join(dir, 'fake.crt.tmp');
  try {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '365',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-subj',
      `/O=Acme Co/CN=${FAKE_CERTIFICATE_SUBJECT}`,
      '-addext',
      'subjectAltName=DNS:ingress.local',
    ]);
    const pem = (await readFile(certFile, 'utf8')) + (await readFile(keyFile, 'utf8'));
    await writeFile(path, pem, { mode: 0o600 });
  } finally {
    await rm(keyFile, { force: true });
    await rm(certFile, { force: true });
  }
  return path;
}
