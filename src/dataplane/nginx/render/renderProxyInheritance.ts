// What a proxying location inherits from the http block instead of writing it
// again (issue 18: at 10,000 Ingresses, 48,006 locations each repeated some 25
// lines). The http block holds the ConfigMap's values of the per-location proxy
// directives: the body size, timeouts and buffering, the retries,
// proxy_http_version and Portico's upstream request headers; a location writes
// one only where its own value differs. nginx resolves inherited values once,
// when it loads the file: a request costs the same either way.
//
// proxy_set_header is an array directive: a block that writes any of them
// inherits none. So a location leaves its headers to the http block only when
// its list is exactly the http block's and nothing else in it sets one (basic
// auth's Authorization, the no-endpoints fallback's X-Code, client certificate
// headers, external auth's response headers, upstream-vhost...); otherwise it
// writes the whole list, as before.
//
// Snippets keep ingress-nginx's shape, where every location writes every one of
// these: a location with a configuration-snippet or the ConfigMap's
// location-snippet, every location of a server with a server-snippet (its own
// or the ConfigMap's), and all of them while the ConfigMap has an http-snippet
// (the http block then holds only the directives it held before). A snippet's
// proxy_set_header then adds to the standard headers, and a server snippet's
// client_max_body_size does not reach the locations.
//
// Portico's other proxying locations (mirror, error pages, external auth's
// subrequest) never wrote the retries nor proxy_http_version, so they ran with
// nginx's own defaults; they now write those where the http block differs.
import type { Configuration, Location, Server } from '../../../model/types.js';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { nextUpstreamSettings } from '../../../model/annotations/nextUpstreamAnnotations.js';
import { raw, text, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { forwardedForValue, originalForwardedHeaders } from './renderClientAddress.js';
import { withGlobalUpstreamHeaders } from './renderHeaderSettings.js';
import { proxyHttpVersion, retryDirectives } from './renderProxyTuning.js';
import { HttpVariable } from './variables.js';

type Directive = readonly [name: string, args: readonly Argument[]];

const SET_HEADER = 'proxy_set_header';

/** The values a location inherits from the http block, by directive name (the whole list for proxy_set_header). */
export class InheritedProxyDirectives {
  readonly #values: ReadonlyMap<string, string>;
  /** The http block's upstream request headers, as withUpstreamHeaders and withGlobalUpstreamHeaders take them. */
  readonly headers: Array<[string, Argument]>;

  constructor(configuration: Configuration) {
    this.headers = standardUpstreamHeaders(configuration);
    this.#values = new Map([
      ...httpProxyScalars(configuration.settings).map(([name, args]): [string, string] => [name, tokens(args)]),
      [SET_HEADER, headerTokens(this.headers)],
    ]);
  }

  /** `name args` in `body`, unless the http block has the same. */
  write(body: ConfigBuilder, name: string, ...args: Argument[]): void {
    if (!writtenAs(this.#values.get(name), args)) body.directive(name, ...args);
  }

  /**
   * Whether `body` may leave its `headers` to the http block: they are the http block's list, nothing in
   * `body` sets a header of its own yet, and `moreFollow` (headers written after these) is false.
   */
  inheritsHeaders(body: ConfigBuilder, headers: ReadonlyArray<[string, Argument]>, moreFollow: boolean): boolean {
    if (moreFollow || mayHideHeaders(body)) return false;
    return headers === this.headers || headerTokens(headers) === this.#values.get(SET_HEADER);
  }
}

const inheritedByConfiguration = new WeakMap<Configuration, InheritedProxyDirectives>();

/**
 * What the location's proxy directives may leave to the http block; undefined when it writes them all
 * (snippets, see above). `server` is undefined for the catch-all's pending routes without a catch-all server.
 */
export function inheritedProxyDirectives(
  location: Location,
  server: Server | undefined,
  configuration: Configuration,
): InheritedProxyDirectives | undefined {
  const { settings } = configuration;
  if (location.annotations.configurationSnippet !== undefined || settings.locationSnippet !== undefined) return undefined;
  if (server?.serverSnippet !== undefined || settings.serverSnippet !== undefined || settings.httpSnippet !== undefined) return undefined;
  return httpInheritance(configuration);
}

function httpInheritance(configuration: Configuration): InheritedProxyDirectives {
  let inherited = inheritedByConfiguration.get(configuration);
  if (inherited === undefined) {
    inherited = new InheritedProxyDirectives(configuration);
    inheritedByConfiguration.set(configuration, inherited);
  }
  return inherited;
}

/** In the http block: the values locations inherit. */
export function renderHttpProxyDefaults(http: ConfigBuilder, configuration: Configuration): void {
  const { settings } = configuration;
  const scalars = httpProxyScalars(settings);
  // With an http-snippet, the http block keeps what it held before (the snippet may set these) and every location writes its own.
  const written = settings.httpSnippet === undefined ? scalars : scalars.slice(0, PREVIOUS_HTTP_SCALARS);
  for (const [name, args] of written) http.directive(name, ...args);
  if (settings.httpSnippet !== undefined) return;
  for (const [name, value] of httpInheritance(configuration).headers) http.directive(SET_HEADER, raw.headerName(name), value);
}

/** nginx's own retries, for the proxying locations that never wrote them. */
const NGINX_RETRIES: readonly Directive[] = [
  ['proxy_next_upstream', [raw.keyword('error'), raw.keyword('timeout')]],
  ['proxy_next_upstream_timeout', [raw.seconds(0)]],
  ['proxy_next_upstream_tries', [raw.integer(0)]],
];
const NGINX_HTTP_VERSION: Directive = ['proxy_http_version', [raw.keyword('1.0')]];

/**
 * In a proxying location of Portico's own (mirror, error page, external auth's subrequest): nginx's own
 * values of the retries, and of proxy_http_version unless `withHttpVersion` is false (the location sets
 * its own), where the http block's differ, so the location behaves as before the http block set them.
 */
export function renderNginxProxyDefaults(body: ConfigBuilder, configuration: Configuration, withHttpVersion = true): void {
  if (configuration.settings.httpSnippet !== undefined) return;
  const inherited = httpInheritance(configuration);
  for (const [name, args] of withHttpVersion ? [...NGINX_RETRIES, NGINX_HTTP_VERSION] : NGINX_RETRIES) inherited.write(body, name, ...args);
}

/** How many of httpProxyScalars' directives the http block held before locations inherited from it. */
const PREVIOUS_HTTP_SCALARS = 5;

/** The http block's per-location proxy directives but the headers, from the ConfigMap (the annotations' defaults). */
function httpProxyScalars(settings: GlobalSettings): Directive[] {
  return [
    ['client_max_body_size', [raw.size(settings.proxyBodySize)]],
    ['proxy_connect_timeout', [raw.seconds(settings.proxyConnectTimeout)]],
    ['proxy_read_timeout', [raw.seconds(settings.proxyReadTimeout)]],
    ['proxy_send_timeout', [raw.seconds(settings.proxySendTimeout)]],
    ['proxy_buffering', [raw.keyword(settings.proxyBuffering)]],
    ...retryDirectives(nextUpstreamSettings(settings), 'proxy'),
    ['proxy_http_version', [proxyHttpVersion(undefined, settings)]],
  ];
}

/** The request headers Portico sends a proxied backend (`<module>_set_header`), the ConfigMap's added. */
export function upstreamRequestHeaders(module: 'proxy' | 'grpc', configuration: Configuration): Array<[string, Argument]> {
  const { settings } = configuration;
  const headers: Array<[string, Argument]> = [
    ['Host', raw.variable(HttpVariable.bestHttpHost)],
    ['X-Request-ID', raw.variable(HttpVariable.requestId)],
    ['X-Real-IP', raw.variable('$remote_addr')],
    ['X-Forwarded-For', forwardedForValue(settings)],
    ['X-Forwarded-Host', raw.variable(HttpVariable.bestHttpHost)],
    ['X-Forwarded-Port', raw.variable(HttpVariable.passServerPort)],
    ['X-Forwarded-Proto', raw.variable(HttpVariable.passAccessScheme)],
    // Always set, so a client's own X-Forwarded-Scheme never passes.
    ['X-Forwarded-Scheme', raw.variable(HttpVariable.passAccessScheme)],
    ['X-Scheme', raw.variable(HttpVariable.passAccessScheme)],
    ...originalForwardedHeaders(settings),
    // httpoxy: a client's Proxy header must not reach CGI-like upstreams as HTTP_PROXY.
    ['Proxy', text('')],
  ];
  // Hop-by-hop headers have no place in HTTP/2 (gRPC).
  if (module === 'proxy') {
    headers.push(['Connection', raw.variable(HttpVariable.connectionUpgrade)], ['Upgrade', raw.variable('$http_upgrade')]);
  }
  return withGlobalUpstreamHeaders(headers, configuration);
}

function standardUpstreamHeaders(configuration: Configuration): Array<[string, Argument]> {
  return upstreamRequestHeaders('proxy', configuration);
}

/** A node after which the location's list is no longer the http block's: its own header, or a snippet's lines. */
function mayHideHeaders(body: ConfigBuilder): boolean {
  return body.hasVerbatim() || body.hasDirective(SET_HEADER);
}

/** Whether a location that left its headers to the http block wrote one after all (a renderer's mistake). */
export function setsOwnHeaders(body: ConfigBuilder): boolean {
  return mayHideHeaders(body);
}

function tokens(args: readonly Argument[]): string {
  return args.map((arg) => arg.token).join(' ');
}

/** Whether `args` are written as `written` (tokens joined by spaces), without joining them: every location asks, about ten times. */
function writtenAs(written: string | undefined, args: readonly Argument[]): boolean {
  if (written === undefined) return false;
  let at = 0;
  for (let index = 0; index < args.length; index++) {
    if (index > 0 && written.charCodeAt(at++) !== 0x20) return false;
    const token = (args[index] as Argument).token;
    if (!written.startsWith(token, at)) return false;
    at += token.length;
  }
  return at === written.length;
}

function headerTokens(headers: ReadonlyArray<[string, Argument]>): string {
  return headers.map(([name, value]) => `${raw.headerName(name).token} ${value.token}`).join('\n');
}
