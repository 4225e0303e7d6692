// The Secret of auth-tls-secret: `ca.crt` (the CAs client certificates must
// chain to) and the optional `ca.crl`, which nginx reads only from files
// (ssl_client_certificate, ssl_crl). Both are checked here, so that nginx
// never refuses a reload over them, and only their PEM blocks, re-armoured,
// become SecretFiles. An unusable Secret never leaves the host open: the
// material says why it is refused, and the host answers 503.
import { X509Certificate } from 'node:crypto';
import type { Secret } from '../kube/objects.js';
import { resolveObjectReference, type ObjectReference } from './objectReference.js';
import type { ReferenceContext } from './referencedObjects.js';
import type { ClientCertificateMaterial, LocationAnnotations } from './types.js';

/** The PEM blocks of one Secret key, re-armoured, or what is wrong with them. */
type PemCheck = { ok: true; pem: string } | { ok: false; problem: string };

/** Per Secret object (a new version is a new object): X.509 parsing is the costly part. */
const checked = new WeakMap<Secret, { ca: PemCheck; crl: PemCheck | undefined }>();

export function resolveClientCertificateSecret(annotations: LocationAnnotations, context: ReferenceContext): LocationAnnotations {
  const wanted = annotations.clientCertificates;
  if (wanted === undefined) return annotations;
  const resolution = resolve(context, wanted.secret);
  let material: ClientCertificateMaterial;
  if (resolution.ok) material = { caFile: resolution.caFile, crlFile: resolution.crlFile };
  else {
    const message = `auth-tls-secret ${resolution.problem}; every request to the Ingress's hosts gets 503 until it is fixed`;
    context.problems.push({ ingress: context.ingress, severity: 'warning', reason: resolution.reason, message });
    material = { refused: message };
  }
  return { ...annotations, clientCertificates: { ...wanted, material } };
}

type Resolution = { ok: true; caFile: string; crlFile: string | undefined } | { ok: false; reason: string; problem: string };

function resolve(context: ReferenceContext, reference: ObjectReference): Resolution {
  const resolved = resolveObjectReference(reference, context.ingress.namespace, context.settings);
  const refuse = (reason: string, problem: string): Resolution => ({ ok: false, reason, problem });
  if (!resolved.ok) return refuse('CrossNamespaceSecret', resolved.reason);
  const secret = context.lookup.secret(resolved.key);
  if (secret === undefined) return refuse('MissingClientCertificateSecret', `${resolved.key} not found`);
  let result = checked.get(secret);
  if (result === undefined) {
    result = { ca: checkPem(secret.data?.['ca.crt'], 'CERTIFICATE'), crl: checkCrl(secret.data?.['ca.crl']) };
    checked.set(secret, result);
  }
  if (!result.ca.ok) return refuse('InvalidClientCertificateSecret', `${resolved.key}: ca.crt ${result.ca.problem}`);
  if (result.crl !== undefined && !result.crl.ok) {
    return refuse('InvalidClientCertificateSecret', `${resolved.key}: ca.crl ${result.crl.problem}`);
  }
  return {
    ok: true,
    caFile: context.secretFiles.add(resolved.key, 'ca', result.ca.pem),
    crlFile: result.crl === undefined ? undefined : context.secretFiles.add(resolved.key, 'crl', result.crl.pem),
  };
}

function checkCrl(data: string | undefined): PemCheck | undefined {
  return data === undefined || data === '' ? undefined : checkPem(data, 'X509 CRL');
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n]+?)-----END \1-----/g;

/**
 * Every PEM block of `label` in the base64 `data` of a Secret key: at least
 * one, each a well-formed X.509 certificate (or CRL), and no block of another
 * kind (a private key in a CA bundle is a mistake worth hearing about).
 */
function checkPem(data: string | undefined, label: 'CERTIFICATE' | 'X509 CRL'): PemCheck {
  if (data === undefined || data === '') return { ok: false, problem: 'is missing' };
  const text = Buffer.from(data, 'base64').toString('latin1');
  const blocks: string[] = [];
  for (const [, blockLabel = '', body = ''] of text.matchAll(PEM_BLOCK)) {
    if (blockLabel !== label) return { ok: false, problem: `holds a PEM block of ${blockLabel}, not only ${label}` };
    const der = Buffer.from(body.replace(/\s+/g, ''), 'base64');
    const problem = label === 'CERTIFICATE' ? certificateProblem(der) : crlProblem(der);
    if (problem !== undefined) return { ok: false, problem: `block ${blocks.length + 1}: ${problem}` };
    blocks.push(armour(label, der));
  }
  if (blocks.length === 0) return { ok: false, problem: `is not PEM (no ${label} block)` };
  return { ok: true, pem: blocks.join('') };
}

function certificateProblem(der: Buffer): string | undefined {
  try {
    new X509Certificate(der);
    return undefined;
  } catch (error) {
    return `not an X.509 certificate (${(error as Error).message})`;
  }
}

/**
 * Node cannot parse CRLs, so their DER structure is checked as far as it
 * tells a CRL from anything else (RFC 5280's CertificateList: a SEQUENCE of
 * the TBSCertList, the algorithm and the signature BIT STRING, nothing after
 * it; the TBSCertList starting with an optional INTEGER version, the
 * signature algorithm, the issuer and a time, where a certificate's TBS has
 * its validity SEQUENCE); nginx's OpenSSL reads the rest.
 */
function crlProblem(der: Buffer): string | undefined {
  const list = sequenceOf(der, 0, der.length, [SEQUENCE, SEQUENCE, BIT_STRING]);
  const tbs = list?.[0];
  if (list === undefined || list.end !== der.length || tbs === undefined) return 'not a DER CertificateList';
  const version = readTlv(der, tbs.contentStart);
  const fields = version?.tag === INTEGER ? version.end : tbs.contentStart;
  const head = sequenceOf(der, fields, tbs.end, [SEQUENCE, SEQUENCE, [UTC_TIME, GENERALIZED_TIME]], true);
  return head === undefined ? 'not a DER CertificateList' : undefined;
}

const INTEGER = 0x02;
const BIT_STRING = 0x03;
const UTC_TIME = 0x17;
const GENERALIZED_TIME = 0x18;
const SEQUENCE = 0x30;

type Tlv = { tag: number; contentStart: number; end: number };

/**
 * The elements at `at` with these tags (a list: any of them), within `limit`;
 * for a whole SEQUENCE at `at` unless `inner` (then the elements themselves, more may follow).
 */
function sequenceOf(
  der: Buffer,
  at: number,
  limit: number,
  tags: ReadonlyArray<number | readonly number[]>,
  inner = false,
): (Tlv[] & { end: number }) | undefined {
  let position = at;
  let end = limit;
  if (!inner) {
    const outer = readTlv(der, at);
    if (outer === undefined || outer.tag !== SEQUENCE || outer.end > limit) return undefined;
    position = outer.contentStart;
    end = outer.end;
  }
  const elements: Tlv[] = [];
  for (const tag of tags) {
    const element = readTlv(der, position);
    const allowed = typeof tag === 'number' ? [tag] : tag;
    if (element === undefined || !allowed.includes(element.tag) || element.end > end) return undefined;
    elements.push(element);
    position = element.end;
  }
  if (!inner && position !== end) return undefined;
  return Object.assign(elements, { end });
}

/** One DER tag-length-value at `at` (definite lengths of at most 4 bytes). */
function readTlv(der: Buffer, at: number): Tlv | undefined {
  const tag = der[at];
  const first = der[at + 1];
  if (tag === undefined || first === undefined) return undefined;
  let length = first;
  let contentStart = at + 2;
  if (first & 0x80) {
    const bytes = first & 0x7f;
    if (bytes === 0 || bytes > 4 || contentStart + bytes > der.length) return undefined;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + (der[contentStart + i] ?? 0);
    contentStart += bytes;
  }
  const end = contentStart + length;
  return end <= der.length ? { tag, contentStart, end } : undefined;
}

function armour(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
