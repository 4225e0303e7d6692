// Throw-away self-signed certificates, stored in `kubernetes.io/tls` Secrets
// the way users (or cert-manager) store them for an Ingress's spec.tls.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { V1Secret } from '@kubernetes/client-node';
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
  const body: V1Secret = {
    metadata: { name },
    type: 'kubernetes.io/tls',
    data: {
      'tls.crt': Buffer.from(certificate.certificatePem).toString('base64'),
      'tls.key': Buffer.from(certificate.keyPem).toString('base64'),
    },
  };
  const { namespace } = cluster;
  try {
    const existing = await cluster.core.readNamespacedSecret({ namespace, name });
    await cluster.core.replaceNamespacedSecret({
      namespace,
      name,
      body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion } },
    });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
    await cluster.core.createNamespacedSecret({ namespace, body });
  }
  return certificate;
}
