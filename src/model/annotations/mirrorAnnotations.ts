// mirror-target, mirror-host, mirror-request-body (ingress-nginx's "mirror"
// group): every request of the Ingress's locations is also sent, as an nginx
// `mirror` subrequest, to another URL whose answer is thrown away.
// CVE-2025-1098 injected configuration through these values, so the target is
// parsed into scheme, host, port and path and written back from those parts:
// letters, digits and `-._~/:,?&=` in the path, and `$request_uri` (the one
// variable ingress-nginx's documentation shows) as the only `$`. The host must
// be an IP address: a name in a proxy_pass with a variable needs a run-time
// `resolver`, which Portico does not configure, so a name is accepted by the
// parser but ignored with a warning (the Ingress is served without mirror).
import { isIP } from 'node:net';
import { optionParser, type ParsedValue, type ValueParser } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup, AnnotationIssue } from './annotationDefinition.js';

/** A mirror-target as Portico re-serialises it (formatMirrorTarget). */
export interface MirrorTarget {
  scheme: 'http' | 'https';
  /** An IPv4 address, an IPv6 address in brackets, or a lower-case DNS name. */
  host: string;
  port: number;
  /** `''`, or a path and query starting with `/`, `?` or `$request_uri`, with `$request_uri` as its only variable. */
  path: string;
}

/** One Ingress's mirror: a copy of each request of its locations goes to `target`. */
export interface Mirror {
  target: MirrorTarget;
  /** `mirror-host`, else the target's host: the Host header of the copy. */
  host: string;
  /** `mirror-request-body`: the copy carries the request body (default on). */
  requestBody: boolean;
}

const SHAPE = /^(https?):\/\/([^/?$]+)(.*)$/i;
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::([0-9]{1,5}))?$/;
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** nginx reads a variable name greedily over [A-Za-z0-9_]: `$request_uri` must not run into more of them. */
const PATH = /^(?:[A-Za-z0-9\-._~/:,?&=]|\$request_uri(?![A-Za-z0-9_]))*$/;
const MAX_TARGET_LENGTH = 2048;

const TARGET_EXPECTED =
  'an http:// or https:// URL of an IP address or DNS name, optional port, and a path of letters, digits, "-._~/:,?&=" ' +
  'and $request_uri (no other variable)';
const HOST_EXPECTED = 'a DNS name or IP address (IPv6 in brackets), with an optional port';

/** The parts of a mirror-target, or what it should have been. */
export const parseMirrorTarget: ValueParser<MirrorTarget> = (text) => {
  const refused = { ok: false as const, expected: TARGET_EXPECTED };
  if (text.length > MAX_TARGET_LENGTH) return refused;
  const shape = SHAPE.exec(text);
  if (!shape) return refused;
  const [, schemeText = '', authority = '', path = ''] = shape;
  const scheme = schemeText.toLowerCase() === 'https' ? 'https' : 'http';
  const parsed = parseAuthority(authority.toLowerCase(), scheme === 'https' ? 443 : 80);
  if (parsed === undefined) return refused;
  const pathStartsWell = path === '' || path.startsWith('/') || path.startsWith('?') || path.startsWith('$request_uri');
  if (!pathStartsWell || !PATH.test(path)) return refused;
  return { ok: true, value: { scheme, ...parsed, path } };
};

/** mirror-host: `host` or `host:port`, written back lower-case. */
export const parseMirrorHost: ValueParser<string> = (text): ParsedValue<string> => {
  const authority = text.toLowerCase();
  const parsed = parseAuthority(authority, 0);
  return parsed === undefined ? { ok: false, expected: HOST_EXPECTED } : { ok: true, value: authority };
};

/** The URL nginx proxies the copy to (the default port left out). */
export function formatMirrorTarget(target: MirrorTarget): string {
  const defaultPort = target.scheme === 'https' ? 443 : 80;
  return `${target.scheme}://${target.host}${target.port === defaultPort ? '' : `:${target.port}`}${target.path}`;
}

/** Whether the target's host is an IP address (nginx then needs no resolver to reach it). */
export function isAddressTarget(target: MirrorTarget): boolean {
  return target.host.startsWith('[') || isIP(target.host) === 4;
}

/** `host[:port]` → host and port (`defaultPort` when absent), or undefined. */
function parseAuthority(authority: string, defaultPort: number): { host: string; port: number } | undefined {
  const parts = AUTHORITY.exec(authority);
  if (!parts) return undefined;
  const [, host = '', portText] = parts;
  const port = portText === undefined ? defaultPort : Number(portText);
  if (portText !== undefined && (port < 1 || port > 65535)) return undefined;
  const isHost = host.startsWith('[')
    ? isIP(host.slice(1, -1)) === 6
    : isIP(host) === 4 || (DNS_NAME.test(host) && !/^[0-9.]+$/.test(host));
  return isHost ? { host, port } : undefined;
}

const mirrorTarget: AnnotationDefinition<MirrorTarget> = { name: 'mirror-target', risk: 'High', parse: parseMirrorTarget };
const mirrorHost: AnnotationDefinition<string> = { name: 'mirror-host', risk: 'High', parse: parseMirrorHost };
const mirrorRequestBody: AnnotationDefinition<'on' | 'off'> = {
  name: 'mirror-request-body',
  risk: 'Low',
  parse: optionParser(['on', 'off']),
};

function mirrorIssues(values: { get<T>(definition: AnnotationDefinition<T>): T | undefined }): AnnotationIssue[] {
  const target = values.get(mirrorTarget);
  if (target === undefined) {
    return [mirrorHost, mirrorRequestBody]
      .filter((annotation) => values.get<unknown>(annotation) !== undefined)
      .map((annotation) => ({ annotation, verdict: 'ignored' as const, reason: 'has no effect without mirror-target; ignored' }));
  }
  if (isAddressTarget(target)) return [];
  return [
    {
      annotation: mirrorTarget,
      verdict: 'ignored',
      reason:
        `the target's host ${target.host} is a name, and Portico configures no resolver for nginx to look it up ` +
        "while serving; name an IP address (a Service's ClusterIP, for example). The Ingress is served without mirror",
    },
  ];
}

export const mirrorAnnotations: AnnotationGroup<Mirror | undefined> = {
  annotations: [mirrorTarget, mirrorHost, mirrorRequestBody],
  issues: mirrorIssues,
  resolve: (values) => {
    const target = values.get(mirrorTarget);
    if (target === undefined || !isAddressTarget(target)) return undefined;
    return {
      target,
      host: values.get(mirrorHost) ?? target.host,
      requestBody: values.get(mirrorRequestBody) !== 'off',
    };
  },
};
