// The TLS keys of the global ConfigMap: session resumption (cache, tickets and
// their key), Diffie-Hellman parameters, ECDH curves, the record buffer, TLS 1.3
// early data and refusing handshakes for unknown names; ingress-nginx's
// defaults (config.go) and its template's http-level directives
// (src/dataplane/nginx/render/renderTlsSettings.ts). The bounds are what
// nginx 1.22 with OpenSSL 3.0 accepts (`nginx -t`, test/model/settings/tlsSettings.test.ts).
import { parseObjectReference } from '../../objectReference.js';
import { nginxSizeBytes, nginxTimeMs } from '../nginxLimits.js';
import type { SpecTable } from '../settingSpec.js';
import { parseBoolean, type ValueParser } from '../valueSyntax.js';

export interface TlsSettings {
  /** ssl-session-cache: `ssl_session_cache shared:SSL:<size>` and `ssl_session_timeout`; false leaves nginx's `none` (no resumption from a cache). */
  sslSessionCache: boolean;
  /** ssl-session-cache-size (nginx size, 32k to 1024m) */
  sslSessionCacheSize: string;
  /** ssl-session-timeout (nginx time in seconds, no `ms`) */
  sslSessionTimeout: string;
  /** ssl-session-tickets: off by default, as ingress-nginx (nginx's own default is on) */
  sslSessionTickets: boolean;
  /** ssl-session-ticket-key: base64 of 48 or 80 bytes; undefined: nginx's random key (new at every reload). */
  sslSessionTicketKey: string | undefined;
  /** ssl-dh-param: the `namespace/name` of a Secret whose `dhparam.pem` holds the DH parameters (model/tlsSettingsFiles.ts). */
  sslDhParam: string | undefined;
  /** ssl-ecdh-curve: `auto` or a ":"-separated list of OpenSSL group names */
  sslEcdhCurve: string;
  /** ssl-buffer-size (nginx size, 512 to 16k) */
  sslBufferSize: string;
  /** ssl-early-data: TLS 1.3 0-RTT */
  sslEarlyData: boolean;
  /** ssl-reject-handshake: the catch-all server refuses TLS handshakes for names no server has */
  sslRejectHandshake: boolean;
}

export const TLS_DEFAULTS: TlsSettings = {
  sslSessionCache: true,
  sslSessionCacheSize: '10m',
  sslSessionTimeout: '10m',
  sslSessionTickets: false,
  sslSessionTicketKey: undefined,
  sslDhParam: undefined,
  sslEcdhCurve: 'auto',
  sslBufferSize: '4k',
  sslEarlyData: false,
  sslRejectHandshake: false,
};

/** An nginx size from `min` to `max` bytes, in the units the directive's parser (ngx_parse_size: k and m, no g) takes. */
function sizeParser(min: number, max: number, expected: string): ValueParser<string> {
  return (text) => {
    const bytes = /[gG]$/.test(text) ? undefined : nginxSizeBytes(text);
    return bytes !== undefined && bytes >= BigInt(min) && bytes <= BigInt(max) ? { ok: true, value: text } : { ok: false, expected };
  };
}

/** nginx refuses a shared session cache under 8 pages ("is too small"); 1024m holds about four million sessions. */
export const parseSessionCacheSize = sizeParser(32 * 1024, 1024 * 1024 * 1024, 'an nginx size from 32k to 1024m, such as 10m');

/**
 * nginx writes TLS records of at most this size. A record carries at most 16k
 * (RFC 8446), so a larger buffer only costs memory per connection; below 512
 * bytes the per-record header and MAC outweigh the data.
 */
export const parseSslBufferSize = sizeParser(512, 16 * 1024, 'an nginx size from 512 to 16k, such as 4k');

/** ssl_session_timeout is a seconds directive: nginx refuses `ms` there. */
export const parseSessionTimeout: ValueParser<string> = (text) =>
  /^[0-9]+[smhdw]?$/.test(text) && nginxTimeMs(text) !== undefined
    ? { ok: true, value: text }
    : { ok: false, expected: 'an nginx time in seconds such as 10m, 1h or 300, at most 24d' };

/** The bytes nginx's ssl_session_ticket_key file may hold: AES-128 (48) or AES-256 (80) keys. */
const TICKET_KEY_BYTES = [48, 80];

/** Strict base64 (padding required, no whitespace), as Go's StdEncoding that ingress-nginx decodes with. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** ingress-nginx only warns on another length, and nginx then refuses the file: here it is refused. */
export const parseSessionTicketKey: ValueParser<string | undefined> = (text) => {
  const expected = 'the base64 of 48 or 80 random bytes (openssl rand 80 | openssl enc -A -base64)';
  if (text === '') return { ok: true, value: undefined };
  if (!BASE64.test(text)) return { ok: false, expected };
  return TICKET_KEY_BYTES.includes(Buffer.from(text, 'base64').length) ? { ok: true, value: text } : { ok: false, expected };
};

/** A Secret as ingress-nginx looks it up in its store: `namespace/name`, nothing relative. */
export const parseDhParamSecret: ValueParser<string | undefined> = (text) => {
  if (text === '') return { ok: true, value: undefined };
  const parsed = parseObjectReference(text);
  if (!parsed.ok || parsed.value.namespace === undefined) return { ok: false, expected: 'a Secret as namespace/name' };
  return { ok: true, value: `${parsed.value.namespace}/${parsed.value.name}` };
};

/**
 * The group names OpenSSL 3.0's SSL_CTX_set1_curves_list takes in nginx 1.22
 * (each checked with `nginx -t`), spelled as OpenSSL spells them (it refuses
 * `p-256`, so no case folding), each with the group it names: OpenSSL refuses
 * a list naming one group twice, also by two of its names (`P-256:prime256v1`).
 */
const ECDH_GROUP_OF: ReadonlyMap<string, string> = new Map([
  ['X25519', 'X25519'],
  ['X448', 'X448'],
  ['P-256', 'P-256'],
  ['prime256v1', 'P-256'],
  ['secp256r1', 'P-256'],
  ['P-384', 'P-384'],
  ['secp384r1', 'P-384'],
  ['P-521', 'P-521'],
  ['secp521r1', 'P-521'],
  ['secp256k1', 'secp256k1'],
  ['brainpoolP256r1', 'brainpoolP256r1'],
  ['brainpoolP384r1', 'brainpoolP384r1'],
  ['brainpoolP512r1', 'brainpoolP512r1'],
  ['ffdhe2048', 'ffdhe2048'],
  ['ffdhe3072', 'ffdhe3072'],
  ['ffdhe4096', 'ffdhe4096'],
  ['ffdhe6144', 'ffdhe6144'],
  ['ffdhe8192', 'ffdhe8192'],
]);

export const ECDH_GROUP_NAMES: readonly string[] = [...ECDH_GROUP_OF.keys()];

/** `auto` or known names of distinct groups joined by ":" (OpenSSL fails the whole list on one bad name, and nginx -t with it). */
export const parseEcdhCurve: ValueParser<string> = (text) => {
  if (text === 'auto') return { ok: true, value: text };
  const groups = text.split(':').map((name) => ECDH_GROUP_OF.get(name));
  const known = groups.every((group) => group !== undefined) && new Set(groups).size === groups.length;
  return known
    ? { ok: true, value: text }
    : { ok: false, expected: `"auto" or a ":"-separated list of distinct groups from ${ECDH_GROUP_NAMES.join(', ')}` };
};

export const TLS_SPECS: SpecTable<TlsSettings> = {
  sslSessionCache: { key: 'ssl-session-cache', parse: parseBoolean },
  sslSessionCacheSize: { key: 'ssl-session-cache-size', parse: parseSessionCacheSize },
  sslSessionTimeout: { key: 'ssl-session-timeout', parse: parseSessionTimeout },
  sslSessionTickets: { key: 'ssl-session-tickets', parse: parseBoolean },
  sslSessionTicketKey: { key: 'ssl-session-ticket-key', parse: parseSessionTicketKey },
  sslDhParam: { key: 'ssl-dh-param', parse: parseDhParamSecret },
  sslEcdhCurve: { key: 'ssl-ecdh-curve', parse: parseEcdhCurve },
  sslBufferSize: { key: 'ssl-buffer-size', parse: parseSslBufferSize },
  sslEarlyData: { key: 'ssl-early-data', parse: parseBoolean },
  sslRejectHandshake: { key: 'ssl-reject-handshake', parse: parseBoolean },
};
