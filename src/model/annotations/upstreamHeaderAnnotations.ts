// The request headers Portico sends upstream that an Ingress may change, as
// ingress-nginx's connection, upstreamvhost and xforwardedprefix groups:
// connection-proxy-header replaces `Connection`, upstream-vhost replaces
// `Host`, x-forwarded-prefix adds `X-Forwarded-Prefix` to rewritten requests.
import { optionParser, type ParsedValue, type ValueParser } from '../settings/valueSyntax.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup } from './annotationDefinition.js';
import { rewriteTarget } from './rewriteAnnotations.js';

/** Set only when one of the annotations is. */
export interface UpstreamHeaders {
  /** `connection-proxy-header`: the Connection header instead of `$connection_upgrade` (HTTP/1.1 backends only). */
  connection: 'close' | 'keep-alive' | undefined;
  /** `upstream-vhost`: the Host header instead of the client's; `$name` and `${name}` are nginx variables. */
  host: string | undefined;
  /** `x-forwarded-prefix`, with rewrite-target: the X-Forwarded-Prefix header; `$1`..`$9` are the rewrite's captures. */
  forwardedPrefix: string | undefined;
}

/** A bound well under nginx's 4 KB token buffer; host names stop at 253. */
const MAX_LENGTH = 1024;

/**
 * Variables an upstream-vhost may name: nginx's families that exist for any
 * suffix, and the host and route names a Host is built from (Portico sets the
 * route names in every location). Any other name could be one nginx does not
 * know, which would fail the reload.
 */
const VHOST_VARIABLE =
  /^(?:(?:http|cookie|arg)_[A-Za-z0-9_]+|host|hostname|server_name|server_port|best_http_host|namespace|ingress_name|service_name|service_port)$/;

/**
 * ingress-nginx validates upstream-vhost as a server name (regex characters
 * allowed) and writes it quoted, so its `$` references are nginx variables.
 * Portico admits what makes a Host value: host name and port characters, and
 * references to the variables above, so nginx never reads anything else.
 */
export const parseUpstreamVhost: ValueParser<string> = (text) => {
  const expected =
    'a host, host:port, or nginx variables ($host, $http_<name>, $service_name, $namespace... as $name or ${name}) with letters, digits and ".-_~:[]"';
  if (text.length > MAX_LENGTH || !/^(?:[A-Za-z0-9._~:[\]-]|\$[A-Za-z0-9_]+|\$\{[A-Za-z0-9_]+\})+$/.test(text))
    return { ok: false, expected };
  const names = [...text.matchAll(/\$\{?([A-Za-z0-9_]+)/g)].map((match) => match[1] ?? '');
  return names.every((name) => VHOST_VARIABLE.test(name)) ? { ok: true, value: text } : { ok: false, expected };
};

/** ingress-nginx's RegexPathWithCapture (spaces allowed, as its validator removes them before matching). */
export function parseForwardedPrefix(text: string): ParsedValue<string> {
  return text.length <= MAX_LENGTH && /^[A-Za-z0-9._~:/$ -]+$/.test(text)
    ? { ok: true, value: text }
    : { ok: false, expected: 'a path of letters, digits, "._~:/-", spaces and captures $1..$9' };
}

const connectionProxyHeader: AnnotationDefinition<'close' | 'keep-alive'> = {
  name: 'connection-proxy-header',
  risk: 'Low',
  parse: optionParser(['close', 'keep-alive']),
};
const upstreamVhost: AnnotationDefinition<string> = { name: 'upstream-vhost', risk: 'Low', parse: parseUpstreamVhost };
const xForwardedPrefix: AnnotationDefinition<string> = { name: 'x-forwarded-prefix', risk: 'Medium', parse: parseForwardedPrefix };

export const upstreamHeaderAnnotations: AnnotationGroup<UpstreamHeaders | undefined> = {
  annotations: [connectionProxyHeader, upstreamVhost, xForwardedPrefix],
  // ingress-nginx writes X-Forwarded-Prefix beside the rewrite only.
  issues: (values) =>
    values.get(rewriteTarget) === undefined
      ? issuesIfSet(values, [xForwardedPrefix], 'ignored', 'no effect without rewrite-target; ignored')
      : [],
  resolve: (values) => {
    const headers: UpstreamHeaders = {
      connection: values.get(connectionProxyHeader),
      host: values.get(upstreamVhost),
      forwardedPrefix: values.get(rewriteTarget) === undefined ? undefined : values.get(xForwardedPrefix),
    };
    return Object.values(headers).some((value) => value !== undefined) ? headers : undefined;
  },
};
