// The two TLS settings nginx can read only from a file: ssl-dh-param's
// Diffie-Hellman parameters (the `dhparam.pem` of a Secret, as ingress-nginx)
// and ssl-session-ticket-key. Both become SecretFiles (0600 in the 0700
// secrets folder the master reads at load, pruned when no loaded nginx.conf
// names them): nginx has no other way to take them, and Lua cannot set them
// per handshake. A Secret that is missing or holds no usable parameters leaves
// ssl_dhparam out (as ingress-nginx), with a warning.
import type { Secret } from '../kube/objects.js';
import type { SecretFileSet } from './secretFiles.js';
import type { TlsSettings } from './settings/keys/tlsSettings.js';

/** SecretFile ids; undefined: the setting is not set or not usable. */
export interface TlsSettingsFiles {
  dhParam: string | undefined;
  sessionTicketKey: string | undefined;
}

/** The key of ingress-nginx's ssl-dh-param Secret. */
export const DH_PARAM_KEY = 'dhparam.pem';

/**
 * The prime's bits OpenSSL 3.0 takes: Debian's default security level 2 refuses
 * DH under 2048 bits when nginx loads them (SSL_CTX_set0_tmp_dh_pkey fails, and
 * nginx -t with it); OpenSSL refuses primes over 10000 bits (OPENSSL_DH_MAX_MODULUS_BITS).
 */
export const MIN_DH_PRIME_BITS = 2048;
export const MAX_DH_PRIME_BITS = 10000;

export function tlsSettingsFiles(
  settings: Pick<TlsSettings, 'sslDhParam' | 'sslSessionTicketKey'>,
  lookup: { secret(key: string): Secret | undefined },
  secretFiles: SecretFileSet,
  warnings: string[],
): TlsSettingsFiles {
  return {
    dhParam: settings.sslDhParam === undefined ? undefined : dhParamFile(settings.sslDhParam, lookup, secretFiles, warnings),
    sessionTicketKey:
      settings.sslSessionTicketKey === undefined
        ? undefined
        : secretFiles.addBinary('ssl-session-ticket-key', Buffer.from(settings.sslSessionTicketKey, 'base64')),
  };
}

function dhParamFile(
  key: string,
  lookup: { secret(key: string): Secret | undefined },
  secretFiles: SecretFileSet,
  warnings: string[],
): string | undefined {
  const secret = lookup.secret(key);
  const data = secret?.data?.[DH_PARAM_KEY];
  const problem = secret === undefined ? 'the Secret does not exist' : data === undefined ? `the Secret has no ${DH_PARAM_KEY}` : undefined;
  const parsed = problem === undefined ? parseDhParameters(Buffer.from(data ?? '', 'base64').toString('latin1')) : { problem };
  if ('problem' in parsed) {
    warnings.push(`ConfigMap key ssl-dh-param: Secret ${key}: ${parsed.problem}; nginx uses no DH parameters (no DHE ciphers)`);
    return undefined;
  }
  return secretFiles.add(key, 'dhparam', parsed.pem);
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n]+?)-----END \1-----/;

/**
 * The first PEM block must be `DH PARAMETERS` (as ingress-nginx checks), its DER
 * a PKCS#3 DHParameter: SEQUENCE { INTEGER prime, INTEGER generator [, INTEGER length] }.
 * The file holds that block re-encoded, nothing else of the Secret's value.
 */
export function parseDhParameters(text: string): { pem: string } | { problem: string } {
  const match = PEM_BLOCK.exec(text);
  if (match === null) return { problem: 'no PEM block' };
  if (match[1] !== 'DH PARAMETERS') return { problem: `the first PEM block is ${match[1]}, not DH PARAMETERS` };
  const der = Buffer.from((match[2] ?? '').replace(/\s+/g, ''), 'base64');
  const integers = derIntegerSequence(der);
  if (integers === undefined || integers.length < 2 || integers.length > 3) return { problem: 'not PKCS#3 DH parameters' };
  const [prime = 0n, generator = 0n] = integers;
  const bits = prime.toString(2).length;
  if (bits < MIN_DH_PRIME_BITS || bits > MAX_DH_PRIME_BITS) {
    return { problem: `a ${bits}-bit prime; OpenSSL accepts ${MIN_DH_PRIME_BITS} to ${MAX_DH_PRIME_BITS} bits` };
  }
  if (prime % 2n === 0n || generator < 2n || generator >= prime - 1n)
    return { problem: 'not DH parameters (prime or generator out of range)' };
  const body = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return { pem: `-----BEGIN DH PARAMETERS-----\n${body}-----END DH PARAMETERS-----\n` };
}

/** The non-negative INTEGERs of a DER SEQUENCE that is the whole of `der`, or undefined when it is anything else. */
function derIntegerSequence(der: Buffer): bigint[] | undefined {
  const outer = derElement(der, 0);
  if (outer === undefined || outer.tag !== 0x30 || outer.end !== der.length) return undefined;
  const integers: bigint[] = [];
  for (let offset = outer.start; offset < outer.end;) {
    const element = derElement(der, offset);
    if (element === undefined || element.tag !== 0x02 || element.end > outer.end || element.end === element.start) return undefined;
    const bytes = der.subarray(element.start, element.end);
    if ((bytes[0] ?? 0) & 0x80) return undefined;
    integers.push(BigInt(`0x${bytes.toString('hex')}`));
    offset = element.end;
  }
  return integers;
}

/** Tag and content bounds of the DER element at `offset` (definite lengths only). */
function derElement(der: Buffer, offset: number): { tag: number; start: number; end: number } | undefined {
  const tag = der[offset];
  const first = der[offset + 1];
  if (tag === undefined || first === undefined) return undefined;
  let length = first;
  let start = offset + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 3) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) {
      const byte = der[start + i];
      if (byte === undefined) return undefined;
      length = length * 256 + byte;
    }
    start += count;
  }
  const end = start + length;
  return end <= der.length ? { tag, start, end } : undefined;
}
