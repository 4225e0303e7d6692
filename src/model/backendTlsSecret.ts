// proxy-ssl-secret's Secret, looked up on every model run (so an edit to it
// reaches nginx without an edit to the Ingress): `ca.crt` (the certificates a
// backend's is verified against) and/or `tls.crt` + `tls.key` (the client
// certificate presented to the backend). nginx reads both from files only, and
// refuses to load a configuration whose file it cannot parse, so every PEM is
// checked here and written back re-encoded: nginx reads exactly what was
// checked. A Secret that cannot be used denies the location (503) with a
// Warning on the Ingress, never a connection without what it asks for.
import { X509Certificate } from 'node:crypto';
import type { Secret } from '../kube/objects.js';
import { resolveObjectReference } from './objectReference.js';
import { privateKeyFromPem } from './privateKeyFromPem.js';
import type { ReferenceContext, ReferenceResolver } from './referencedObjects.js';
import type { BackendTls, BackendTlsFiles } from './types.js';

/** The PEMs nginx is given, or why the Secret cannot be used. */
type BackendTlsMaterial = { ok: true; ca: string | undefined; client: string | undefined } | { ok: false; reason: string };

// Parsing is the costly part and a Secret object never changes in the store
// (a new version is a new object), so results are remembered per object.
const parsed = new WeakMap<Secret, BackendTlsMaterial>();

export const resolveBackendTls: ReferenceResolver = (annotations, context) => {
  const tls = annotations.backendTls;
  if (tls === undefined) return annotations;
  const files = backendTlsFiles(tls, context);
  return { ...annotations, backendTls: { ...tls, files } };
};

function backendTlsFiles(tls: BackendTls, context: ReferenceContext): BackendTlsFiles | undefined {
  const deny = (reason: string): undefined => {
    context.problems.push({
      ingress: context.ingress,
      severity: 'warning',
      reason: 'BackendTlsSecret',
      message: `proxy-ssl-secret: ${reason}; its locations answer 503`,
    });
    return undefined;
  };
  const resolved = resolveObjectReference(tls.secret, context.ingress.namespace, context.settings);
  if (!resolved.ok) return deny(resolved.reason);
  const secret = context.lookup.secret(resolved.key);
  if (secret === undefined) return deny(`Secret ${resolved.key} not found`);
  let material = parsed.get(secret);
  if (material === undefined) {
    material = backendTlsMaterial(secret);
    parsed.set(secret, material);
  }
  if (!material.ok) return deny(`Secret ${resolved.key}: ${material.reason}`);
  if (tls.verify && material.ca === undefined)
    return deny(`Secret ${resolved.key} has no ca.crt to verify the backend against (proxy-ssl-verify: on)`);
  return {
    trustedCertificate: material.ca === undefined ? undefined : context.secretFiles.add(resolved.key, 'ca', material.ca),
    clientCertificate: material.client === undefined ? undefined : context.secretFiles.add(resolved.key, 'client', material.client),
  };
}

/** What nginx reads from the Secret: ca.crt, and tls.crt + tls.key (both or neither); at least one of the two. */
export function backendTlsMaterial(secret: Pick<Secret, 'data'>): BackendTlsMaterial {
  const field = (name: string): string | undefined => {
    const value = secret.data?.[name];
    return value === undefined || value === '' ? undefined : Buffer.from(value, 'base64').toString('utf8');
  };
  const caPem = field('ca.crt');
  const certificatePem = field('tls.crt');
  const keyPem = field('tls.key');
  if (caPem === undefined && certificatePem === undefined && keyPem === undefined) {
    return { ok: false, reason: 'it has neither ca.crt nor tls.crt and tls.key' };
  }
  let ca: string | undefined;
  if (caPem !== undefined) {
    const certificates = pemCertificates(caPem, 'ca.crt');
    if (!certificates.ok) return certificates;
    ca = certificates.pem;
  }
  if ((certificatePem === undefined) !== (keyPem === undefined)) return { ok: false, reason: 'tls.crt and tls.key go together' };
  if (certificatePem === undefined || keyPem === undefined) return { ok: true, ca, client: undefined };
  const chain = pemCertificates(certificatePem, 'tls.crt');
  if (!chain.ok) return chain;
  let key: string;
  try {
    const privateKey = privateKeyFromPem(keyPem);
    if (!chain.leaf.checkPrivateKey(privateKey)) return { ok: false, reason: 'tls.key does not belong to tls.crt' };
    key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  } catch (error) {
    return { ok: false, reason: `tls.key is not an unencrypted PEM private key (${(error as Error).message})` };
  }
  // One file, certificate (then its chain) before the key, as nginx's ssl_certificate reads it.
  return { ok: true, ca, client: chain.pem + key };
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle, checked and re-encoded; anything else in it is left out. */
function pemCertificates(text: string, field: string): { ok: true; pem: string; leaf: X509Certificate } | { ok: false; reason: string } {
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  const certificates: X509Certificate[] = [];
  for (const [index, block] of blocks.entries()) {
    try {
      certificates.push(new X509Certificate(block));
    } catch (error) {
      return { ok: false, reason: `certificate ${index + 1} of ${field} is not valid (${(error as Error).message})` };
    }
  }
  const [leaf] = certificates;
  if (leaf === undefined) return { ok: false, reason: `${field} holds no PEM certificate` };
  return { ok: true, pem: certificates.map((certificate) => certificate.toString()).join(''), leaf };
}
