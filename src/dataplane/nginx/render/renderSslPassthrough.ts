// SSL passthrough (--enable-ssl-passthrough) in nginx's stream block, with
// ssl_preread instead of ingress-nginx's TCP proxy in Go. The public HTTPS
// port is a stream server that reads each connection's SNI and sends it on,
// always with a PROXY header carrying the client's address:
//   - a passthrough host: to an internal stream server on a unix socket that
//     reads the PROXY header and the SNI again and proxies, without a PROXY
//     header, to the endpoints of the host's backend (written here: no stream
//     Lua in Debian 12, so an endpoint change reloads; old workers drain);
//     a host without endpoints goes to a server that closes the connection;
//   - anything else (other hosts, unknown SNI, no SNI): to the http block's TLS
//     servers at 127.0.0.1:--ssl-passthrough-proxy-port (renderListen.ts),
//     which take the client's address from the PROXY header (renderClientAddress.ts).
// nginx's stream proxy_protocol is one switch per server, not per upstream:
// hence the internal server for the passthrough hosts, whose backends must not get a PROXY header.
import type { Configuration } from '../../../model/types.js';
import type { PassthroughHost } from '../../../model/stream/streamTypes.js';
import { isDnsName, literal, raw, unixSocket, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { TLS_HOP_ADDRESS, type RenderContext } from './renderContext.js';
import { publicAddresses } from './renderListen.js';
import type { RenderScope } from './renderScope.js';
import { escapeRegex } from './regex.js';

/** What a connection on the HTTPS port goes to: the TLS servers, or the passthrough server. */
const ROUTE_VARIABLE = '$portico_tls_route';
/** The passthrough server's choice: a host's upstream, or the closing server. */
const PASSTHROUGH_BACKEND_VARIABLE = '$portico_passthrough_backend';
const TERMINATION_UPSTREAM = 'portico_tls_termination';
const PASSTHROUGH_UPSTREAM = 'portico_ssl_passthrough';
const CLOSED_UPSTREAM = 'portico_passthrough_closed';

/** Words a map key cannot be without meaning something else (nginx's map module). */
const MAP_SPECIAL_WORDS: ReadonlySet<string> = new Set(['default', 'hostnames', 'include', 'volatile']);

/** --ssl-passthrough-proxy-port when SSL passthrough is on, else undefined. */
export function tlsHopPort(configuration: Configuration, context: RenderContext): number | undefined {
  return configuration.stream?.sslPassthrough === true ? context.ports.sslPassthroughProxy : undefined;
}

export function renderSslPassthroughStream(stream: ConfigBuilder, scope: RenderScope): void {
  const { configuration, context } = scope;
  if (configuration.stream?.sslPassthrough !== true) return;
  const hosts = configuration.stream.passthroughHosts;
  const served = hosts.filter((host) => host.endpoints.length > 0);

  stream.block('map', [raw.variable('$ssl_preread_server_name'), raw.variable(ROUTE_VARIABLE)], (map) => {
    map.entry(raw.keyword('default'), raw.upstreamName(TERMINATION_UPSTREAM));
    for (const host of hosts) map.entry(sniKey(host.hostname), raw.upstreamName(PASSTHROUGH_UPSTREAM));
  });
  stream.block('map', [raw.variable('$ssl_preread_server_name'), raw.variable(PASSTHROUGH_BACKEND_VARIABLE)], (map) => {
    map.entry(raw.keyword('default'), raw.upstreamName(CLOSED_UPSTREAM));
    for (const host of served) map.entry(sniKey(host.hostname), raw.upstreamName(host.upstreamName));
  });
  stream.block('upstream', [raw.upstreamName(TERMINATION_UPSTREAM)], (upstream) => {
    upstream.directive('server', raw.hostPort(TLS_HOP_ADDRESS, context.ports.sslPassthroughProxy));
  });
  stream.block('upstream', [raw.upstreamName(PASSTHROUGH_UPSTREAM)], (upstream) => {
    upstream.directive('server', unixSocket(context.paths.passthroughSocket));
  });
  stream.block('upstream', [raw.upstreamName(CLOSED_UPSTREAM)], (upstream) => {
    upstream.directive('server', unixSocket(context.paths.passthroughClosedSocket));
  });
  for (const host of served) renderHostUpstream(stream, host);

  renderPublicServer(stream, scope);
  stream.block('server', [], (server) => {
    server.directive('listen', unixSocket(context.paths.passthroughSocket), raw.keyword('proxy_protocol'));
    // The stream log shows the client, not the unix socket.
    server.directive('set_real_ip_from', literal('unix:'));
    server.directive('ssl_preread', raw.keyword('on'));
    server.directive('proxy_pass', raw.variable(PASSTHROUGH_BACKEND_VARIABLE));
  });
  stream.block('server', [], (server) => {
    server.directive('listen', unixSocket(context.paths.passthroughClosedSocket));
    server.directive('return', literal(''));
  });
}

/** The HTTPS port on the public addresses: a PROXY header in with use-proxy-protocol (believed from proxy-real-ip-cidr), always one out. */
function renderPublicServer(stream: ConfigBuilder, scope: RenderScope): void {
  const { context, configuration } = scope;
  const { settings } = configuration;
  stream.block('server', [], (server) => {
    const options = [
      ...(settings.useProxyProtocol ? [raw.keyword('proxy_protocol')] : []),
      ...(settings.reusePort ? [raw.keyword('reuseport')] : []),
    ];
    for (const address of publicAddresses(context, settings)) {
      server.directive('listen', raw.listen(address, context.ports.https), ...options);
    }
    if (settings.useProxyProtocol) {
      // 0 is no deadline in ingress-nginx's proxy; nginx's own default (30s) is the closest bound it has.
      if (settings.proxyProtocolHeaderTimeoutMs > 0) {
        server.directive('proxy_protocol_timeout', raw.time(`${settings.proxyProtocolHeaderTimeoutMs}ms`));
      }
      for (const cidr of settings.proxyRealIpCidr) server.directive('set_real_ip_from', raw.cidr(cidr));
    }
    server.directive('ssl_preread', raw.keyword('on'));
    server.directive('proxy_protocol', raw.keyword('on'));
    server.directive('proxy_pass', raw.variable(ROUTE_VARIABLE));
  });
}

function renderHostUpstream(stream: ConfigBuilder, host: PassthroughHost): void {
  stream.block('upstream', [raw.upstreamName(host.upstreamName)], (upstream) => {
    for (const endpoint of host.endpoints) upstream.directive('server', raw.hostPort(endpoint.address, endpoint.port));
  });
}

/**
 * A map key matching the SNI name of a host, case-insensitively as nginx
 * matches server names: the exact name (hashed); a wildcard `*.example.com`
 * as one label under it, like its server_name (serverNames.ts); a name that is
 * one of map's own words as an anchored regex.
 */
function sniKey(hostname: string): Argument {
  if (isDnsName(hostname) && !MAP_SPECIAL_WORDS.has(hostname.toLowerCase())) return literal(hostname);
  if (hostname.startsWith('*.')) return literal(`~*^[^.]+\\.${escapeRegex(hostname.slice(2))}$`);
  return literal(`~*^${escapeRegex(hostname)}$`);
}
