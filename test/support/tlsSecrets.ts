// Throw-away self-signed certificates, stored in `kubernetes.io/tls` Secrets
// the way users (or cert-manager) store them for an Ingress's spec.tls.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { applySecret } from './applySecret.js';
import type { E2eCluster } from './e2eCluster.js';

const run = promisify(execFile);

export interface TestCertificate {
  readonly commonName: string;
  readonly certificatePem: string;
  readonly keyPem: string;
  /** In the form Node gives a peer certificate's `fingerprint256`, so the two compare directly. */
  readonly fingerprint256: string;
}

/** A self-signed RSA certificate whose SANs are `dnsNames` (the first is also its CN). */
export async function selfSignedCertificate(dnsNames: readonly [string, ...string[]]): Promise<TestCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-tls-'));
  const keyFile = join(dir, 'tls.key');
  const certificateFile = join(dir, 'tls.crt');
  const [commonName] = dnsNames;
  try {
    await run(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-keyout',
        keyFile,
        '-out',
        certificateFile,
        '-subj',
        `/CN=${commonName}`,
        '-addext',
        `subjectAltName=${dnsNames.map((name) => `DNS:${name}`).join(',')}`,
      ],
      { timeout: 30_000 },
    );
    const certificatePem = await readFile(certificateFile, 'utf8');
    return {
      commonName,
      certificatePem,
      keyPem: await readFile(keyFile, 'utf8'),
      fingerprint256: new X509Certificate(certificatePem).fingerprint256,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Creates, or replaces when it exists, the TLS Secret `name` in the cluster's
 * namespace with a new certificate for `dnsNames`; returns that certificate.
 */
export async function applyTlsSecret(
  cluster: Pick<E2eCluster, 'core' | 'namespace'>,
  name: string,
  dnsNames: readonly [string, ...string[]],
): Promise<TestCertificate> {
  const certificate = await selfSignedCertificate(dnsNames);
  await applySecret(cluster, name, { 'tls.crt': certificate.certificatePem, 'tls.key': certificate.keyPem }, 'kubernetes.io/tls');
  return certificate;
}
