// The URLs of external authentication (auth-url, auth-signin and their
// global-auth-* twins), parsed and written back from their parts, so nothing
// but a URL reaches nginx.conf (CVE-2025-24514 injected configuration through
// auth-url). The characters are ingress-nginx's URLWithNginxVariableRegex
// (letters, digits, `-._~/:,?&=` and `$`); `$` must start an nginx variable
// reference. auth-url admits variables in its path and query only: its host
// and port become an `upstream` server, which nginx resolves when it loads the
// configuration (a variable host would need a run-time resolver, which
// Portico does not configure). auth-signin is only ever a redirect target, so
// its host may use variables too (`https://$host/oauth2/start`).
import { isIP } from 'node:net';
import type { ParsedValue } from '../settings/valueSyntax.js';
import type { AuthUrl } from '../types.js';

const SHAPE = /^(https?):\/\/([^/?]+)(.*)$/i;
/** Path and query: ingress-nginx's characters, `$` as a variable reference only. */
const PATH_AND_QUERY = /^(?:[A-Za-z0-9\-._~/:,?&=]|\$[A-Za-z0-9_]+)*$/;
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::([0-9]{1,5}))?$/;
/** A host that may use variables (auth-signin): names, addresses and `$name` references. */
const VARIABLE_AUTHORITY = /^(?:[a-z0-9\-.:[\]]|\$[A-Za-z0-9_]+)+$/i;

const AUTH_URL_EXPECTED =
  'an http:// or https:// URL of a DNS name or IP address, optional port, and a path and query of letters, digits, ' +
  '"-._~/:,?&=" and nginx variables ($name; not in the host)';
const SIGNIN_URL_EXPECTED = 'an http:// or https:// URL of letters, digits, "-._~/:,?&=" and nginx variables ($name)';

/** auth-url, global-auth-url. */
export function parseAuthUrl(text: string): ParsedValue<AuthUrl> {
  const refused = { ok: false as const, expected: AUTH_URL_EXPECTED };
  const shape = SHAPE.exec(text);
  if (!shape) return refused;
  const [, schemeText = '', authority = '', rest = ''] = shape;
  const scheme = schemeText.toLowerCase() === 'https' ? 'https' : 'http';
  const parts = AUTHORITY.exec(authority.toLowerCase());
  const host = parts?.[1] ?? '';
  const portText = parts?.[2];
  const port = portText === undefined ? (scheme === 'https' ? 443 : 80) : Number(portText);
  if (!isHost(host) || !Number.isInteger(port) || port < 1 || port > 65535) return refused;
  const path = pathAndQuery(rest);
  if (path === undefined) return refused;
  return { ok: true, value: { scheme, host, port, path } };
}

/** The URL as Portico writes it (the default port left out). */
export function formatAuthUrl(url: AuthUrl): string {
  const defaultPort = url.scheme === 'https' ? 443 : 80;
  return `${url.scheme}://${url.host}${url.port === defaultPort ? '' : `:${url.port}`}${url.path}`;
}

/** auth-signin, global-auth-signin: written back with a lower-case scheme and host. */
export function parseSigninUrl(text: string): ParsedValue<string> {
  const refused = { ok: false as const, expected: SIGNIN_URL_EXPECTED };
  const shape = SHAPE.exec(text);
  if (!shape) return refused;
  const [, scheme = '', authority = '', rest = ''] = shape;
  if (!VARIABLE_AUTHORITY.test(authority)) return refused;
  const path = pathAndQuery(rest);
  if (path === undefined) return refused;
  return { ok: true, value: `${scheme.toLowerCase()}://${lowerOutsideVariables(authority)}${path}` };
}

/**
 * The query parameter names of a sign-in URL (before any variable could
 * change them): a URL that already carries the redirect parameter keeps it.
 */
export function queryParameterNames(url: string): string[] {
  const query = url.indexOf('?');
  if (query === -1) return [];
  return url
    .slice(query + 1)
    .split('&')
    .map((pair) => pair.split('=')[0] ?? '');
}

export function isHost(host: string): boolean {
  if (host.startsWith('[')) return isIP(host.slice(1, -1)) === 6;
  return isIP(host) === 4 || (DNS_NAME.test(host) && !/^[0-9.]+$/.test(host));
}

/** `rest` checked; a query without a path gets the path `/`. */
function pathAndQuery(rest: string): string | undefined {
  if (rest !== '' && !rest.startsWith('/') && !rest.startsWith('?')) return undefined;
  if (!PATH_AND_QUERY.test(rest)) return undefined;
  return rest.startsWith('?') ? `/${rest}` : rest;
}

function lowerOutsideVariables(text: string): string {
  return text.replace(/(\$[A-Za-z0-9_]+)|[^$]+/g, (part, variable: string | undefined) =>
    variable === undefined ? part.toLowerCase() : part,
  );
}
