// A TLS Secret's private key as a KeyObject, for the check that it belongs to
// its certificate. OpenSSL 3 reads a PEM key by trying its decoders in turn:
// about 0.35 ms per RSA 2048 key here, 1.7 s of the first model at 10,000
// Ingresses (3,333 TLS Secrets). Told the exact format, it reads PKCS #1 DER
// in about 0.13 ms. So an RSA key, the common case (cert-manager's default),
// is unwrapped to its PKCS #1 DER here and read as such; every other key, and
// any PEM this strict reading does not take, goes the general way, which also
// gives the error messages.
import { createPrivateKey, type KeyObject } from 'node:crypto';

export function privateKeyFromPem(pem: string): KeyObject {
  const der = rsaPkcs1Der(pem);
  if (der !== undefined) {
    try {
      return createPrivateKey({ key: der, format: 'der', type: 'pkcs1' });
    } catch {
      // not a key after all: the general reader says why
    }
  }
  return createPrivateKey(pem);
}

// One PEM block, nothing around it but whitespace, no headers (an encrypted
// PKCS #1 key has Proc-Type and DEK-Info lines, which the body's alphabet refuses).
const PEM_BLOCK = /^\s*-----BEGIN (RSA PRIVATE KEY|PRIVATE KEY)-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END \1-----\s*$/;
// Padding only at the end, as OpenSSL's PEM reader wants it (Node's base64 decoder is laxer).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// 1.2.840.113549.1.1.1, rsaEncryption, DER-encoded without its tag and length.
const RSA_ENCRYPTION = Buffer.from('2a864886f70d010101', 'hex');

/** The PKCS #1 RSAPrivateKey DER of an unencrypted RSA key in PEM (PKCS #1 or #8), or undefined for anything else. */
export function rsaPkcs1Der(pem: string): Buffer | undefined {
  const block = PEM_BLOCK.exec(pem);
  if (block === null) return undefined;
  const body = block[2]!.replace(/\r?\n/g, '');
  if (!BASE64.test(body)) return undefined;
  const der = Buffer.from(body, 'base64');
  return block[1] === 'RSA PRIVATE KEY' ? der : pkcs8RsaKey(der);
}

/** PrivateKeyInfo ::= SEQUENCE { version INTEGER, algorithm AlgorithmIdentifier, privateKey OCTET STRING, ... }. */
function pkcs8RsaKey(der: Buffer): Buffer | undefined {
  const info = readElement(der, 0);
  if (info === undefined || info.tag !== 0x30 || info.end !== der.length) return undefined;
  const version = readElement(der, info.start);
  if (version === undefined || version.tag !== 0x02) return undefined;
  const algorithm = readElement(der, version.end);
  if (algorithm === undefined || algorithm.tag !== 0x30) return undefined;
  const oid = readElement(der, algorithm.start);
  if (oid === undefined || oid.tag !== 0x06 || !der.subarray(oid.start, oid.end).equals(RSA_ENCRYPTION)) return undefined;
  const key = readElement(der, algorithm.end);
  if (key === undefined || key.tag !== 0x04 || key.end !== info.end) return undefined; // attributes after it: the general way
  return der.subarray(key.start, key.end);
}

interface Element {
  tag: number;
  /** Where the contents start and end. */
  start: number;
  end: number;
}

/** The DER element at `offset` (one-byte tag, definite length), or undefined when it does not fit in `der`. */
function readElement(der: Buffer, offset: number): Element | undefined {
  if (offset + 2 > der.length) return undefined;
  const tag = der[offset]!;
  let length = der[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || start + octets > der.length) return undefined;
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + der[start + i]!;
    start += octets;
  }
  const end = start + length;
  return end > der.length ? undefined : { tag, start, end };
}
