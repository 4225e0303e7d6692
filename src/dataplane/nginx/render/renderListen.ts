// The listen lines of the public servers (HTTP and HTTPS on each address) and
// of the internal default-server port, as ingress-nginx's buildHTTPListener,
// buildHTTPSListener and default server: bind-address's addresses (else every
// IPv4 address, and every IPv6 one unless the host has no IPv6 or disable-ipv6
// says so); `proxy_protocol` on the public ports only with use-proxy-protocol
// (the status server, the default-server port and the unix sockets never expect
// a PROXY header); `reuseport`, valid once per address:port, with default_server.
// With SSL passthrough the HTTPS port is the stream block's (renderSslPassthrough.ts)
// on the same addresses, and the TLS listeners move to 127.0.0.1:--ssl-passthrough-proxy-port.
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { raw, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { TLS_HOP_ADDRESS, type RenderContext } from './renderContext.js';
import type { RenderScope } from './renderScope.js';

/** Every IPv6 address: nginx binds it IPv6-only (its default), beside the IPv4 listen. */
const ANY_IPV6 = '::';

/** HTTP and HTTPS on each public address; `isDefault` for the catch-all server, the one that takes default_server. */
export function renderPublicListens(block: ConfigBuilder, scope: RenderScope, isDefault: boolean): void {
  const { context, configuration } = scope;
  const { settings } = configuration;
  const options = [
    ...(settings.useProxyProtocol ? [raw.keyword('proxy_protocol')] : []),
    ...(isDefault ? defaultServerOptions(settings) : []),
  ];
  const http2 = settings.useHttp2 ? [raw.keyword('http2')] : [];
  const passthrough = configuration.stream?.sslPassthrough === true;
  for (const address of publicAddresses(context, settings)) {
    block.directive('listen', raw.listen(address, context.ports.http), ...options);
    if (!passthrough) block.directive('listen', raw.listen(address, context.ports.https), raw.keyword('ssl'), ...http2, ...options);
  }
  // SSL passthrough: the stream block owns the HTTPS port and hands these servers their connections with a PROXY header.
  if (passthrough) {
    const hop = [raw.keyword('proxy_protocol'), ...(isDefault ? defaultServerOptions(settings) : [])];
    block.directive('listen', raw.listen(TLS_HOP_ADDRESS, context.ports.sslPassthroughProxy), raw.keyword('ssl'), ...http2, ...hop);
  }
}

/** The internal catch-all port (--default-server-port): every address of each family, never bind-address's (as ingress-nginx). */
export function renderDefaultPortListens(block: ConfigBuilder, context: RenderContext, settings: GlobalSettings): void {
  for (const address of everyAddress(context, settings)) {
    block.directive('listen', raw.listen(address, context.ports.defaultServer), ...defaultServerOptions(settings));
  }
}

function defaultServerOptions(settings: GlobalSettings): Argument[] {
  return [raw.keyword('default_server'), ...(settings.reusePort ? [raw.keyword('reuseport')] : [])];
}

/**
 * The context's addresses when the embedder fixed them (tests, a single
 * address); else bind-address's of each family, or every address of it.
 * `undefined` is the port alone: every IPv4 address.
 */
export function publicAddresses(context: RenderContext, settings: GlobalSettings): Array<string | undefined> {
  if (context.listenAddresses.length > 0) return [...context.listenAddresses];
  const { ipv4, ipv6 } = settings.bindAddress;
  const v4 = ipv4.length > 0 ? [...ipv4] : [undefined];
  if (!ipv6Listens(context, settings)) return v4;
  return [...v4, ...(ipv6.length > 0 ? ipv6 : [ANY_IPV6])];
}

function everyAddress(context: RenderContext, settings: GlobalSettings): Array<string | undefined> {
  if (context.listenAddresses.length > 0) return [...context.listenAddresses];
  return ipv6Listens(context, settings) ? [undefined, ANY_IPV6] : [undefined];
}

function ipv6Listens(context: RenderContext, settings: GlobalSettings): boolean {
  return context.hostHasIpv6 && !settings.disableIpv6;
}
