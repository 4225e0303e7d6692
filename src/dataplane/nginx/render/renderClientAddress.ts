// The client's address and the forwarded headers, as ingress-nginx's template:
// nginx's realip module replaces $remote_addr with the address a trusted proxy
// forwarded (X-Forwarded-For or forwarded-for-header, or the PROXY protocol
// header) before any phase reads it, so the access log, allow/deny, the limits
// and the headers sent upstream all see the client. With use-forwarded-headers
// the scheme, port and host the client reached the proxy with are trusted too.
// With SSL passthrough (`hopPort`: --ssl-passthrough-proxy-port), TLS
// connections come from the stream block at TLS_HOP_ADDRESS with a PROXY
// header carrying the client (renderSslPassthrough.ts), while plain HTTP
// connections come as before: the hop is trusted, and what is believed of
// each kind of connection stays what it was without passthrough.
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { literal, raw, template, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { TLS_HOP_ADDRESS } from './renderContext.js';
import { HttpVariable } from './variables.js';

/** compute-full-forwarded-for's chain (the realip module has replaced $remote_addr, so $proxy_add_x_forwarded_for would repeat the client). */
const FULL_FORWARDED_FOR = '$full_x_forwarded_for';
/** Whether the PROXY header's address is one of proxy-real-ip-cidr. */
const PROXY_PROTOCOL_ADDR_TRUSTED = '$proxy_protocol_addr_trusted';
/** What forwarded-for-proxy-protocol-header carries: the trusted proxy's forwarded-for-header, else the PROXY address. */
const FORWARDED_FOR_PROXY_PROTOCOL = '$forwarded_for_proxy_protocol';
/** With the PROXY protocol and forwarded headers: X-Forwarded-Proto, or the connection's scheme. */
const FORWARDED_SCHEME = '$forwarded_scheme';
/** Passthrough without use-proxy-protocol: the hop's PROXY choice for TLS connections, forwarded-for-header for plain ones. */
const HOP_FORWARDED_FOR = '$portico_hop_forwarded_for';
/** Passthrough without use-proxy-protocol: the client's address before real IP (the hop's PROXY address for TLS connections). */
const HOP_CONNECTING_ADDR = '$portico_connecting_addr';
/** Passthrough without use-proxy-protocol: the port the client connected to (the hop's PROXY destination port for TLS connections). */
const HOP_SERVER_PORT = '$portico_public_server_port';

/** ingress-nginx's buildForwardedFor: the variable nginx reads a request header into. */
function requestHeaderVariable(header: string): Argument {
  return raw.variable(`$http_${raw.headerName(header).token.toLowerCase().replaceAll('-', '_')}`);
}

/** Real IP is on with forwarded headers, the PROXY protocol or enable-real-ip. */
function usesRealIp(settings: GlobalSettings): boolean {
  return settings.useForwardedHeaders || settings.useProxyProtocol || settings.enableRealIp;
}

/**
 * A PROXY address decides whether forwarded-for-header is believed, through a header headers-more sets: with
 * both the PROXY protocol and forwarded headers, and with passthrough's hop when only forwarded-for-header is believed.
 */
export function usesForwardedForProxyProtocolHeader(settings: GlobalSettings, hopPort: number | undefined): boolean {
  const forwardedFor = settings.useForwardedHeaders || settings.enableRealIp;
  return (
    (settings.useForwardedHeaders && settings.useProxyProtocol) || (hopPort !== undefined && !settings.useProxyProtocol && forwardedFor)
  );
}

/** The http block's realip directives and the variables they need; nothing with every key at its default and no passthrough. */
export function renderRealIp(http: ConfigBuilder, settings: GlobalSettings, hopPort: number | undefined): void {
  const passthrough = hopPort !== undefined;
  if (!usesRealIp(settings) && !passthrough) return;
  if (usesForwardedForProxyProtocolHeader(settings, hopPort)) {
    renderForwardedForProxyProtocol(http, settings, passthrough);
    http.directive('real_ip_header', raw.headerName(settings.forwardedForProxyProtocolHeader));
  } else if (settings.useProxyProtocol || passthrough) {
    http.directive('real_ip_header', raw.keyword('proxy_protocol'));
  } else {
    http.directive('real_ip_header', raw.headerName(settings.forwardedForHeader));
  }
  http.directive('real_ip_recursive', raw.keyword('on'));
  if (usesRealIp(settings)) for (const cidr of settings.proxyRealIpCidr) http.directive('set_real_ip_from', raw.cidr(cidr));
  if (passthrough) http.directive('set_real_ip_from', raw.cidr(TLS_HOP_ADDRESS));

  if (settings.useForwardedHeaders && settings.computeFullForwardedFor) {
    const connecting = settings.useProxyProtocol ? '$proxy_protocol_addr' : passthrough ? HOP_CONNECTING_ADDR : '$realip_remote_addr';
    if (connecting === HOP_CONNECTING_ADDR) {
      http.block('map', [raw.variable('$proxy_protocol_addr'), raw.variable(HOP_CONNECTING_ADDR)], (map) => {
        map.entry(raw.keyword('default'), raw.variable('$proxy_protocol_addr'));
        map.entry(literal(''), raw.variable('$realip_remote_addr'));
      });
    }
    http.block('map', [raw.variable('$http_x_forwarded_for'), raw.variable(FULL_FORWARDED_FOR)], (map) => {
      map.entry(raw.keyword('default'), template(`$http_x_forwarded_for, ${connecting}`));
      map.entry(literal(''), raw.variable(connecting));
    });
  }
}

/**
 * A PROXY header from a trusted address (an HTTP proxy behind a TCP load
 * balancer) passes on that proxy's forwarded-for-header, any other the PROXY
 * address. real_ip_header takes no variable, so the choice becomes a request
 * header (headers-more, rewrite phase), which realip reads in its preaccess pass.
 * Passthrough's hop without use-proxy-protocol: a connection without a PROXY
 * header (plain HTTP) passes on forwarded-for-header, as without passthrough.
 */
function renderForwardedForProxyProtocol(http: ConfigBuilder, settings: GlobalSettings, passthrough: boolean): void {
  http.block('geo', [raw.variable('$proxy_protocol_addr'), raw.variable(PROXY_PROTOCOL_ADDR_TRUSTED)], (geo) => {
    geo.entry(raw.keyword('default'), raw.integer(0));
    for (const cidr of settings.proxyRealIpCidr) geo.entry(raw.cidr(cidr), raw.integer(1));
  });
  http.block('map', [raw.variable(PROXY_PROTOCOL_ADDR_TRUSTED), raw.variable(FORWARDED_FOR_PROXY_PROTOCOL)], (map) => {
    map.entry(raw.keyword('default'), raw.variable('$proxy_protocol_addr'));
    map.entry(raw.integer(1), requestHeaderVariable(settings.forwardedForHeader));
  });
  let value = FORWARDED_FOR_PROXY_PROTOCOL;
  if (passthrough && !settings.useProxyProtocol) {
    value = HOP_FORWARDED_FOR;
    http.block('map', [raw.variable('$proxy_protocol_addr'), raw.variable(HOP_FORWARDED_FOR)], (map) => {
      map.entry(raw.keyword('default'), raw.variable(FORWARDED_FOR_PROXY_PROTOCOL));
      map.entry(literal(''), requestHeaderVariable(settings.forwardedForHeader));
    });
  }
  const header = raw.headerName(settings.forwardedForProxyProtocolHeader).token;
  http.directive('more_set_input_headers', template(`${header}: ${value}`));
}

/**
 * $pass_access_scheme, $pass_server_port and $best_http_host: what the client
 * used, or with use-forwarded-headers what the proxy says it used (of an
 * X-Forwarded-Host list, the first host, as ingress-nginx's parse_x_forwarded_host).
 * Behind the PROXY protocol the port is the PROXY header's destination port,
 * and its port 443 means HTTPS (ingress-nginx's lua_ingress.lua).
 */
export function renderForwardedVariables(http: ConfigBuilder, settings: GlobalSettings, hopPort: number | undefined): void {
  const forwarded = settings.useForwardedHeaders;
  if (settings.useProxyProtocol) {
    trustedHeaderMap(http, forwarded, '$http_x_forwarded_proto', FORWARDED_SCHEME, raw.variable('$scheme'));
    http.block('map', [raw.variable('$proxy_protocol_server_port'), raw.variable(HttpVariable.passAccessScheme)], (map) => {
      map.entry(raw.keyword('default'), raw.variable(FORWARDED_SCHEME));
      map.entry(raw.integer(443), raw.keyword('https'));
    });
  } else {
    trustedHeaderMap(http, forwarded, '$http_x_forwarded_proto', HttpVariable.passAccessScheme, raw.variable('$scheme'));
  }
  let port = settings.useProxyProtocol ? '$proxy_protocol_server_port' : '$server_port';
  if (hopPort !== undefined && !settings.useProxyProtocol) {
    // The TLS servers' own port is the hop's: the client connected to the PROXY header's destination port.
    port = HOP_SERVER_PORT;
    http.block('map', [raw.variable('$server_port'), raw.variable(HOP_SERVER_PORT)], (map) => {
      map.entry(raw.keyword('default'), raw.variable('$server_port'));
      map.entry(raw.integer(hopPort), raw.variable('$proxy_protocol_server_port'));
    });
  }
  trustedHeaderMap(http, forwarded, '$http_x_forwarded_port', HttpVariable.passServerPort, raw.variable(port));
  if (forwarded) {
    http.block('map', [raw.variable('$http_x_forwarded_host'), raw.variable(HttpVariable.bestHttpHost)], (map) => {
      map.entry(raw.keyword('default'), raw.variable(HttpVariable.thisHost));
      map.entry(literal('~^([^,]+)'), template('$1'));
    });
  } else {
    trustedHeaderMap(http, false, '$http_x_forwarded_host', HttpVariable.bestHttpHost, raw.variable(HttpVariable.thisHost));
  }
}

/** `variable` is the request header's value when it is trusted and present, else `otherwise`. */
function trustedHeaderMap(http: ConfigBuilder, trusted: boolean, header: string, variable: string, otherwise: Argument): void {
  const source = trusted ? raw.variable(header) : literal('');
  http.block('map', [source, raw.variable(variable)], (map) => {
    map.entry(raw.keyword('default'), trusted ? raw.variable(header) : otherwise);
    if (trusted) map.entry(literal(''), otherwise);
  });
}

/** X-Forwarded-For as ingress-nginx sends it: the (real) client address, or compute-full-forwarded-for's chain. */
export function forwardedForValue(settings: GlobalSettings): Argument {
  return raw.variable(settings.useForwardedHeaders && settings.computeFullForwardedFor ? FULL_FORWARDED_FOR : '$remote_addr');
}

/** What the client (or the proxy before nginx) sent as forwarded-for-header and X-Forwarded-Host, passed on under other names. */
export function originalForwardedHeaders(settings: GlobalSettings): Array<[string, Argument]> {
  return [
    ['X-Original-Forwarded-For', requestHeaderVariable(settings.forwardedForHeader)],
    ['X-Original-Forwarded-Host', requestHeaderVariable('X-Forwarded-Host')],
  ];
}
