// The header annotations in nginx.conf, as ingress-nginx's template writes
// them: custom-headers as headers-more's more_set_headers (it replaces a header
// the backend sent and applies to every status, where add_header would add a
// second copy, skip error statuses without `always`, and hide the server's
// HSTS add_header); connection-proxy-header, upstream-vhost and
// x-forwarded-prefix as the request headers sent upstream; the proxy-cookie-*
// and proxy-redirect-* rewrites of the response. A location without these
// annotations gets nothing from here, and nginx loads headers-more only while
// some location sets a custom header or the http block uses it (renderHeaderSettings.ts).
import { posix } from 'node:path';
import type { HeaderRewrite, ResponseRewrites } from '../../../model/annotations/responseRewriteAnnotations.js';
import type { Configuration, LocationAnnotations } from '../../../model/types.js';
import { captureTemplate, filePath, raw, template, text, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { usesForwardedForProxyProtocolHeader } from './renderClientAddress.js';
import { tlsHopPort } from './renderSslPassthrough.js';
import type { RenderContext } from './renderContext.js';
import { httpUsesHeadersMore } from './renderHeaderSettings.js';

/** Debian's libnginx-mod-http-headers-more-filter. */
export const HEADERS_MORE_MODULE_FILE = 'ngx_http_headers_more_filter_module.so';

function setsCustomHeaders(annotations: LocationAnnotations): boolean {
  const custom = annotations.customHeaders;
  return custom !== undefined && custom.denied === undefined && custom.headers.length > 0;
}

/**
 * The main context's load_module, only while the http block (renderHeaderSettings.ts, or real IP's
 * more_set_input_headers) or a location sets headers with it.
 */
export function renderHeadersMoreModule(main: ConfigBuilder, configuration: Configuration, context: RenderContext): void {
  const used =
    httpUsesHeadersMore(configuration) ||
    usesForwardedForProxyProtocolHeader(configuration.settings, tlsHopPort(configuration, context)) ||
    configuration.servers.some((server) => server.locations.some((location) => setsCustomHeaders(location.annotations)));
  if (used) main.directive('load_module', filePath(posix.join(context.modulesDir, HEADERS_MORE_MODULE_FILE)));
}

/**
 * custom-headers: 503 for a location whose ConfigMap cannot be used (before
 * any `rewrite ... break`, which would skip it), else one more_set_headers per
 * header. Its one argument is `Name: value`; the value is literal text.
 */
export function renderCustomHeaders(body: ConfigBuilder, annotations: LocationAnnotations): void {
  const custom = annotations.customHeaders;
  if (custom === undefined) return;
  if (custom.denied !== undefined) {
    body.directive('return', raw.integer(503));
    return;
  }
  for (const [name, value] of custom.headers) body.directive('more_set_headers', text(`${raw.headerName(name).word}: ${value}`));
}

/** Portico's upstream request headers with the Ingress's Host and Connection, and X-Forwarded-Prefix beside a rewrite. */
export function withUpstreamHeaders(headers: Array<[string, Argument]>, annotations: LocationAnnotations): Array<[string, Argument]> {
  const upstream = annotations.upstreamHeaders;
  if (upstream === undefined) return headers;
  const { host, connection, forwardedPrefix } = upstream;
  const replaced = headers.map(([name, value]): [string, Argument] => {
    if (name === 'Host' && host !== undefined) return [name, template(host)];
    // Only where Portico sends one: HTTP/2 (gRPC) has no Connection header.
    if (name === 'Connection' && connection !== undefined) return [name, text(connection)];
    return [name, value];
  });
  if (forwardedPrefix !== undefined && annotations.rewrite.target !== undefined) {
    replaced.push(['X-Forwarded-Prefix', captureTemplate(forwardedPrefix)]);
  }
  return replaced;
}

/** After proxy_pass (nginx refuses `proxy_redirect default` before it); grpc_pass has no such directives. */
export function renderResponseRewrites(body: ConfigBuilder, rewrites: ResponseRewrites | undefined, module: 'proxy' | 'grpc'): void {
  if (rewrites === undefined || module !== 'proxy') return;
  if (rewrites.cookieDomain !== undefined) body.directive('proxy_cookie_domain', ...rewriteArguments(rewrites.cookieDomain));
  if (rewrites.cookiePath !== undefined) body.directive('proxy_cookie_path', ...rewriteArguments(rewrites.cookiePath));
  const { redirect } = rewrites;
  if (redirect !== undefined)
    body.directive('proxy_redirect', ...(redirect === 'default' ? [raw.keyword('default')] : rewriteArguments(redirect)));
}

/** Both words interpolate variables in nginx: text() keeps any `$` a dollar sign. */
function rewriteArguments(rewrite: HeaderRewrite): Argument[] {
  return rewrite === 'off' ? [raw.keyword('off')] : [text(rewrite.from), text(rewrite.to)];
}
