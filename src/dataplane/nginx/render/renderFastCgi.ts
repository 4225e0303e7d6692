// backend-protocol FCGI: what a location passing to a FastCGI server sends
// besides the request. ingress-nginx includes nginx's fastcgi_params file;
// Portico writes the same parameters itself (the file is the distribution's
// to change), leaving out those the Ingress's ConfigMap sets, so each name is
// sent once, with the ConfigMap's value. fastcgi_pass itself is renderProxy's.
import type { FastCgi } from '../../../model/annotations/fastCgiAnnotations.js';
import { literal, raw, template, text, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';

/** nginx's fastcgi_params, plus HTTP_PROXY empty: a client's Proxy header must not reach a CGI program as HTTP_PROXY (httpoxy). */
const STANDARD_PARAMS: ReadonlyArray<[string, Argument[]]> = [
  ['QUERY_STRING', [template('$query_string')]],
  ['REQUEST_METHOD', [template('$request_method')]],
  ['CONTENT_TYPE', [template('$content_type')]],
  ['CONTENT_LENGTH', [template('$content_length')]],
  ['SCRIPT_NAME', [template('$fastcgi_script_name')]],
  ['REQUEST_URI', [template('$request_uri')]],
  ['DOCUMENT_URI', [template('$document_uri')]],
  ['DOCUMENT_ROOT', [template('$document_root')]],
  ['SERVER_PROTOCOL', [template('$server_protocol')]],
  ['REQUEST_SCHEME', [template('$scheme')]],
  ['HTTPS', [template('$https'), raw.keyword('if_not_empty')]],
  ['GATEWAY_INTERFACE', [text('CGI/1.1')]],
  ['SERVER_SOFTWARE', [template('nginx/$nginx_version')]],
  ['REMOTE_ADDR', [template('$remote_addr')]],
  ['REMOTE_PORT', [template('$remote_port')]],
  ['REMOTE_USER', [template('$remote_user')]],
  ['SERVER_ADDR', [template('$server_addr')]],
  ['SERVER_PORT', [template('$server_port')]],
  ['SERVER_NAME', [template('$server_name')]],
  // PHP built with --enable-force-cgi-redirect answers nothing without it.
  ['REDIRECT_STATUS', [text('200')]],
  ['HTTP_PROXY', [text('')]],
];

/**
 * The parameters and fastcgi_index of a FastCGI location; with an unusable
 * ConfigMap, `return 503` (a rewrite-phase return: it must come before any
 * `rewrite ... break`, so this is called first).
 */
export function renderFastCgi(body: ConfigBuilder, fastCgi: FastCgi | undefined): void {
  if (fastCgi?.denied !== undefined) {
    body.directive('return', raw.integer(503));
    return;
  }
  const params = fastCgi?.params ?? [];
  const overridden = new Set(params.map(([name]) => name));
  for (const [name, value] of STANDARD_PARAMS) if (!overridden.has(name)) body.directive('fastcgi_param', literal(name), ...value);
  if (fastCgi?.index !== undefined) body.directive('fastcgi_index', literal(fastCgi.index));
  // The model allows only well-formed references to variables nginx.conf has (fastCgiAnnotations.ts).
  for (const [name, value] of params) body.directive('fastcgi_param', literal(name), template(value));
}
