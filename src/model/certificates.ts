// TLS certificates from `kubernetes.io/tls` Secrets: parsed, checked against
// their key, and matched to hosts by SAN as ingress-nginx does.
import { createHash, X509Certificate } from 'node:crypto';
import { objectKey, type Secret } from '../kube/objects.js';
import { privateKeyFromPem } from './privateKeyFromPem.js';
import type { Certificate } from './types.js';

export type CertificateResult = { ok: true; certificate: Certificate } | { ok: false; reason: string };

// Parsing is the costly part and a Secret object never changes in the store
// (a new version is a new object), so results are remembered per object.
const parsed = new WeakMap<Secret, CertificateResult>();

export function certificateFromSecret(secret: Secret | undefined, key: string): CertificateResult {
  if (!secret) return { ok: false, reason: `secret ${key} not found` };
  let result = parsed.get(secret);
  if (!result) {
    result = parseCertificate(secret);
    parsed.set(secret, result);
  }
  return result;
}

function parseCertificate(secret: Secret): CertificateResult {
  const key = objectKey(secret);
  const certificatePem = decode(secret.data?.['tls.crt']);
  const keyPem = decode(secret.data?.['tls.key']);
  if (!certificatePem || !keyPem) return { ok: false, reason: `secret ${key} has no tls.crt and tls.key` };
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificatePem);
  } catch (error) {
    return { ok: false, reason: `secret ${key}: tls.crt is not a PEM certificate (${(error as Error).message})` };
  }
  try {
    if (!certificate.checkPrivateKey(privateKeyFromPem(keyPem))) {
      return { ok: false, reason: `secret ${key}: tls.key does not belong to tls.crt` };
    }
  } catch (error) {
    return { ok: false, reason: `secret ${key}: tls.key is not a PEM private key (${(error as Error).message})` };
  }
  const digest = createHash('sha256').update(certificatePem).update(keyPem).digest('hex').slice(0, 16);
  return {
    ok: true,
    certificate: {
      id: `${secret.metadata?.namespace ?? ''}-${secret.metadata?.name ?? ''}-${digest}`,
      secret: key,
      certificatePem,
      keyPem,
      hosts: certificateHosts(certificate),
      notAfter: new Date(certificate.validTo).toISOString(),
    },
  };
}

function decode(value: string | undefined): string | undefined {
  return value ? Buffer.from(value, 'base64').toString('utf8') : undefined;
}

/** DNS SANs, else the subject CN (as ingress-nginx falls back to it). */
function certificateHosts(certificate: X509Certificate): string[] {
  const sans = (certificate.subjectAltName ?? '')
    .split(/,\s*/)
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4).toLowerCase());
  if (sans.length > 0) return sans;
  const commonName = /(?:^|\n)CN=([^\n]+)/.exec(certificate.subject)?.[1];
  return commonName ? [commonName.toLowerCase()] : [];
}

/**
 * Whether the certificate is valid for an Ingress host. A wildcard host needs
 * the same wildcard in the certificate; a precise host matches itself or a
 * one-label wildcard.
 */
export function certificateCoversHost(certificate: Certificate, host: string): boolean {
  const wanted = host.toLowerCase();
  for (const name of certificate.hosts) {
    if (name === wanted) return true;
    if (!wanted.startsWith('*.') && name.startsWith('*.')) {
      const dot = wanted.indexOf('.');
      if (dot > 0 && wanted.slice(dot) === name.slice(1)) return true;
    }
  }
  return false;
}
