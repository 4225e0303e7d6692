// The client's address and the listeners: real IP from a trusted proxy's
// header (enable-real-ip, proxy-real-ip-cidr) or from the PROXY protocol
// (use-proxy-protocol and its two companions), and what the HTTP/HTTPS
// listeners bind (bind-address, disable-ipv6, reuse-port). use-forwarded-headers,
// forwarded-for-header and compute-full-forwarded-for are core settings.
// Rendered by dataplane/nginx/render/renderClientAddress.ts and renderListen.ts.
import { isIP } from 'node:net';
import { parseSourceRange } from '../../annotations/ipAccessAnnotations.js';
import type { SpecTable } from '../settingSpec.js';
import { listParser, parseBoolean, parseHeaderName, quoteValue, type ValueParser } from '../valueSyntax.js';
import { goDurationMs } from '../goDuration.js';

/** bind-address, split by family as ingress-nginx does (BindAddressIpv4, BindAddressIpv6); IPv6 without brackets. */
export interface BindAddresses {
  readonly ipv4: readonly string[];
  readonly ipv6: readonly string[];
}

export interface ClientAddressSettings {
  /** enable-real-ip: take the client's address from forwarded-for-header even without use-forwarded-headers */
  enableRealIp: boolean;
  /** proxy-real-ip-cidr: the proxies whose forwarded-for-header (or PROXY address) is trusted */
  proxyRealIpCidr: string[];
  /** use-proxy-protocol: the HTTP and HTTPS listeners expect a PROXY protocol header */
  useProxyProtocol: boolean;
  /**
   * proxy-protocol-header-timeout, in milliseconds: as in ingress-nginx, the deadline of the PROXY header on
   * the ssl-passthrough listener of the HTTPS port only (nginx's stream proxy_protocol_timeout there,
   * renderSslPassthrough.ts; nginx 1.22's http listeners have no such directive: client_header_timeout bounds it).
   */
  proxyProtocolHeaderTimeoutMs: number;
  /** forwarded-for-proxy-protocol-header: the request header carrying the address real IP takes with both PROXY protocol and forwarded headers */
  forwardedForProxyProtocolHeader: string;
  /**
   * reuse-port: `reuseport` on the default server's listen lines (one socket per worker). Portico's default is
   * false, where ingress-nginx's is true: with a socket per worker, connections keep reaching the old workers'
   * sockets for a moment after a reload and are answered with the old nginx.conf (a new host got 404s in 4 e2e
   * tests of one full run), which breaks the zero-failed-requests reloads Portico promises.
   */
  reusePort: boolean;
  /** bind-address: empty binds every address of each family */
  bindAddress: BindAddresses;
  /** disable-ipv6: no IPv6 listen lines even where the host has IPv6 */
  disableIpv6: boolean;
}

export const CLIENT_ADDRESS_DEFAULTS: ClientAddressSettings = {
  enableRealIp: false,
  proxyRealIpCidr: ['0.0.0.0/0'],
  useProxyProtocol: false,
  proxyProtocolHeaderTimeoutMs: 5000,
  forwardedForProxyProtocolHeader: 'X-Forwarded-For-Proxy-Protocol',
  reusePort: false,
  bindAddress: { ipv4: [], ipv6: [] },
  disableIpv6: false,
};

/** One address or CIDR, with the syntax of the *-source-range annotations. */
const parseCidr: ValueParser<string> = (text) => {
  const parsed = parseSourceRange(text);
  return parsed.ok ? { ok: true, value: text } : { ok: false, expected: 'an IPv4/IPv6 address or CIDR such as 10.0.0.0/8' };
};

/** Hex digits, dots and colons only: no IPv6 zone id (`%eth0`), no brackets, which isIP or nginx would read differently. */
const PLAIN_ADDRESS = /^[0-9A-Fa-f.:]+$/;

/** IP addresses, split by family; an invalid one refuses the value (ingress-nginx skips it with a warning). */
export const parseBindAddresses: ValueParser<BindAddresses> = (text) => {
  const ipv4: string[] = [];
  const ipv6: string[] = [];
  for (const part of text.split(',')) {
    const address = part.trim();
    if (address === '') continue;
    const family = PLAIN_ADDRESS.test(address) ? isIP(address) : 0;
    if (family === 0) return { ok: false, expected: `a comma-separated list of IPv4/IPv6 addresses; ${quoteValue(address)} is not one` };
    (family === 4 ? ipv4 : ipv6).push(address);
  }
  return { ok: true, value: { ipv4: [...new Set(ipv4)], ipv6: [...new Set(ipv6)] } };
};

/** A day: longer is no header deadline anyone means. */
const MAX_DURATION_MS = 86_400_000;

/** Go's time.ParseDuration as ingress-nginx reads proxy-protocol-header-timeout (`5s`, `1m30s`, `500ms`, `0`), not negative, at most 24h. */
export const parseGoDurationMs: ValueParser<number> = (text) => {
  // No sign: a timeout is not negative, and ingress-nginx's examples never write one.
  const milliseconds = /^[+-]/.test(text) ? undefined : goDurationMs(text);
  return milliseconds !== undefined && milliseconds <= MAX_DURATION_MS
    ? { ok: true, value: milliseconds }
    : { ok: false, expected: 'a Go duration such as 5s, 500ms or 1m30s, from 0 to 24h' };
};

export const CLIENT_ADDRESS_SPECS: SpecTable<ClientAddressSettings> = {
  enableRealIp: { key: 'enable-real-ip', parse: parseBoolean },
  // An empty list trusts no proxy (ingress-nginx renders no set_real_ip_from then).
  proxyRealIpCidr: { key: 'proxy-real-ip-cidr', parse: listParser(',', parseCidr, 'addresses or CIDRs') },
  useProxyProtocol: { key: 'use-proxy-protocol', parse: parseBoolean },
  proxyProtocolHeaderTimeoutMs: { key: 'proxy-protocol-header-timeout', parse: parseGoDurationMs },
  forwardedForProxyProtocolHeader: { key: 'forwarded-for-proxy-protocol-header', parse: parseHeaderName },
  reusePort: { key: 'reuse-port', parse: parseBoolean },
  bindAddress: { key: 'bind-address', parse: parseBindAddresses },
  disableIpv6: { key: 'disable-ipv6', parse: parseBoolean },
};
