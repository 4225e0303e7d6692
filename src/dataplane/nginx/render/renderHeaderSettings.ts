// The header keys of the global ConfigMap (settings/keys/headerSettings.ts) in
// nginx.conf, where ingress-nginx's template puts them: the request header
// limits and the response header rules in the http block, the request headers
// (proxy-set-headers, X-Original-URI) in every proxied location, since a
// location's own proxy_set_header lines hide the http block's.
import type { Configuration } from '../../../model/types.js';
import { raw, template, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { onOff } from './renderHttp.js';

/** Whether the http block uses headers-more: to remove Server (server-tokens off) or to add add-headers. */
export function httpUsesHeadersMore(configuration: Configuration): boolean {
  return !configuration.settings.serverTokens || (configuration.globalHeaders?.response.length ?? 0) > 0;
}

export function renderHeaderSettings(http: ConfigBuilder, configuration: Configuration): void {
  const { settings } = configuration;
  http.directive('client_header_buffer_size', raw.size(settings.clientHeaderBufferSize));
  const large = settings.largeClientHeaderBuffers;
  http.directive('large_client_header_buffers', raw.integer(large.number), raw.size(large.size));
  http.directive('http2_max_concurrent_streams', raw.integer(settings.http2MaxConcurrentStreams));
  http.directive('proxy_headers_hash_max_size', raw.integer(settings.proxyHeadersHashMaxSize));
  http.directive('proxy_headers_hash_bucket_size', raw.integer(settings.proxyHeadersHashBucketSize));
  http.directive('underscores_in_headers', onOff(settings.enableUnderscoresInHeaders));
  http.directive('ignore_invalid_headers', onOff(settings.ignoreInvalidHeaders));

  // headers-more: unlike add_header, a location's own more_set_headers add to these instead of hiding them.
  for (const [name, value] of configuration.globalHeaders?.response ?? []) {
    http.directive('more_set_headers', template(`${raw.headerName(name).word}: ${value}`));
  }
  // server_tokens off still sends "Server: nginx"; ingress-nginx removes the header, the backend's too.
  if (!settings.serverTokens) http.directive('more_clear_headers', raw.headerName('Server'));
  if (settings.allowBackendServerHeader) http.directive('proxy_pass_header', raw.headerName('Server'));

  // No location sets its own *_hide_header, so these apply everywhere. Portico's HSTS (renderServer.ts's
  // add_header) replaces a backend's, as ingress-nginx's Lua sets ngx.header, instead of sending two.
  const hstsHidden = settings.hsts ? ['Strict-Transport-Security'] : [];
  for (const name of [...settings.hideHeaders, ...hstsHidden]) http.directive('proxy_hide_header', raw.headerName(name));
  for (const name of hstsHidden) http.directive('grpc_hide_header', raw.headerName(name));
}

/**
 * The request headers a proxied location sends with the global ones: X-Original-URI
 * (proxy-add-original-uri-header), then proxy-set-headers, whose entry for a header
 * Portico already sends replaces Portico's value (ingress-nginx would send both).
 */
export function withGlobalUpstreamHeaders(headers: Array<[string, Argument]>, configuration: Configuration): Array<[string, Argument]> {
  // By lower-case name (nginx compares header names so): a later entry replaces an earlier one.
  const added = new Map<string, [string, Argument]>();
  if (configuration.settings.proxyAddOriginalUriHeader) added.set('x-original-uri', ['X-Original-URI', raw.variable('$request_uri')]);
  for (const [name, value] of configuration.globalHeaders?.request ?? []) added.set(name.toLowerCase(), [name, template(value)]);
  if (added.size === 0) return headers;
  // Portico's spelling is kept, so the annotations' replacements (renderHeaders.ts) still find their header.
  const replaced = headers.map(([name, value]): [string, Argument] => [name, added.get(name.toLowerCase())?.[1] ?? value]);
  const own = new Set(headers.map(([name]) => name.toLowerCase()));
  return [...replaced, ...[...added].filter(([lower]) => !own.has(lower)).map(([, header]) => header)];
}
