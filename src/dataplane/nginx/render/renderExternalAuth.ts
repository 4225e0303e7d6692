// External authentication (auth-url, global-auth-url) as ingress-nginx's
// template does it with nginx's auth_request: each protected location asks an
// internal location `= /_external-auth-<id>` first, which proxies a bodyless
// copy of the request (plus X-Original-URL and friends) to the auth service;
// 2xx lets the request through, 401 and 403 go to the client, an auth service
// that cannot be reached gives 500. A 401 with a sign-in URL becomes a 302 to
// it with the original URL in `rd=` (a named location, escaped by
// lua/portico/external_auth.lua). With auth-keepalive the location asks the
// auth location through a Lua subrequest instead (auth_request does not reuse
// upstream connections, nginx ticket 1579), over an upstream that keeps idle
// connections. Locations without external auth get nothing from here.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { queryParameterNames } from '../../../model/annotations/externalAuthUrl.js';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import type { AuthKeepalive, ExternalAuth, Location, Server } from '../../../model/types.js';
import { filePath, literal, raw, template, text, type Argument } from './arguments.js';
import { SETTINGS_ORIGIN } from './configOrigins.js';
import type { ConfigBuilder } from './configBuilder.js';
import { luaCall, type LuaCall } from './luaCall.js';
import { renderNginxProxyDefaults } from './renderProxyInheritance.js';
import type { RenderScope } from './renderScope.js';
import { HttpVariable } from './variables.js';

/** The cache zone of every auth location with auth-cache-key (ingress-nginx's `auth_cache`). */
const CACHE_ZONE = 'portico_auth_cache';
const AUTH_COOKIE = '$auth_cookie';
const SIGNIN_URL = '$portico_auth_signin';
const SIGNIN_LUA = luaCall('portico.external_auth', 'signin_redirect');
/** What the keep-alive check in lua/portico/external_auth.lua reads: the auth location, and the response headers to copy. */
const AUTH_PATH = '$portico_auth_path';
const RESPONSE_HEADER_NAMES = '$portico_auth_response_headers';

/**
 * The external auth a location applies, or undefined. As ingress-nginx: no
 * location under one of no-auth-locations is authenticated, and global auth
 * never covers the catch-all's default backend (no Ingress asked for it).
 */
export function appliedExternalAuth(location: Location, settings: GlobalSettings): ExternalAuth | undefined {
  const auth = location.annotations.externalAuth;
  if (auth === undefined || (auth.global && location.ingress === undefined)) return undefined;
  return settings.noAuthLocations.some((prefix) => location.path.startsWith(prefix)) ? undefined : auth;
}

/** A name for what belongs to one location of a server (its match and path are unique there). */
function locationId(location: Location): string {
  return createHash('sha256').update(`${location.match} ${location.path}`).digest('hex').slice(0, 16);
}

function authLocationPath(location: Location): string {
  return `/_external-auth-${locationId(location)}`;
}

function signinLocationName(location: Location): string {
  return `@portico_auth_signin_${locationId(location)}`;
}

/**
 * One `upstream` per auth service and origin (an Ingress, or the ConfigMap for
 * global auth), so a host nginx cannot resolve when it loads the configuration is traced to its origin.
 */
function upstreamName(auth: ExternalAuth, location: Location): string {
  const origin = auth.global || location.ingress === undefined ? '' : `${location.ingress.namespace}/${location.ingress.name}`;
  // Keep-alive settings belong to the upstream: locations that differ in them need one each.
  const keepalive = auth.keepalive === undefined ? '' : ` ${JSON.stringify(auth.keepalive)}`;
  const digest = createHash('sha256').update(`${origin} ${auth.url.host} ${auth.url.port}${keepalive}`).digest('hex').slice(0, 16);
  return `portico_auth_${digest}`;
}

/** What the global ConfigMap's keys wrote comes from the settings, the rest from the location's Ingress. */
function originOf(auth: ExternalAuth, location: Location, scope: RenderScope): number {
  return auth.global ? SETTINGS_ORIGIN : scope.origins.ingress(location.ingress);
}

/** In the http block: the auth services' upstreams and, when a location caches, the cache. */
export function renderExternalAuthHttp(http: ConfigBuilder, scope: RenderScope): void {
  const upstreams = new Set<string>();
  let caches = false;
  for (const server of scope.configuration.servers) {
    for (const location of server.locations) {
      const auth = appliedExternalAuth(location, scope.configuration.settings);
      if (auth === undefined) continue;
      caches ||= auth.cacheKey !== undefined;
      const origin = originOf(auth, location, scope);
      const name = upstreamName(auth, location);
      if (upstreams.has(name)) continue;
      upstreams.add(name);
      http.from(origin, () => {
        http.block('upstream', [raw.upstreamName(name)], (upstream) => {
          upstream.directive('server', raw.hostPort(unbracketed(auth.url.host), auth.url.port));
          if (auth.keepalive !== undefined) {
            upstream.directive('keepalive', raw.integer(auth.keepalive.connections));
            upstream.directive('keepalive_requests', raw.integer(auth.keepalive.requests));
            upstream.directive('keepalive_timeout', raw.seconds(auth.keepalive.timeoutSeconds));
          }
        });
      });
    }
  }
  if (!caches) return;
  // Beside the proxy temp dir: nginx creates it at start and hands it to the worker user.
  const directory = posix.join(posix.dirname(scope.context.paths.temp.proxy), 'auth_cache');
  http.directive(
    'proxy_cache_path',
    filePath(directory),
    raw.keyword('levels=1:2'),
    raw.keyword('keys_zone=portico_auth_cache:10m'),
    raw.keyword('max_size=128m'),
    raw.keyword('inactive=30m'),
    raw.keyword('use_temp_path=off'),
  );
}

/** In the server, before the location's own block(s): the internal auth location and the sign-in redirect. */
export function renderExternalAuthLocations(server: ConfigBuilder, location: Location, model: Server, scope: RenderScope): void {
  const auth = appliedExternalAuth(location, scope.configuration.settings);
  if (auth === undefined || auth.denied !== undefined) return;
  const origin = originOf(auth, location, scope);
  server.from(origin, () => {
    server.block('location', [raw.keyword('='), literal(authLocationPath(location))], (body) => {
      renderAuthLocation(body, auth, location, model, scope);
    });
    if (auth.signin !== undefined) {
      const signin = auth.signin;
      server.block('location', [raw.namedLocation(signinLocationName(location))], (body) => renderSignin(body, auth, signin));
    }
  });
}

function renderAuthLocation(body: ConfigBuilder, auth: ExternalAuth, location: Location, model: Server, scope: RenderScope): void {
  const { settings } = scope.configuration;
  const { url } = auth;
  body.directive('internal');
  body.directive('access_log', raw.keyword('off'));
  // The subrequest shares the request's variables: it keeps the location's log variables (servers set none of them).
  if (auth.cacheKey !== undefined) {
    body.directive('proxy_cache', raw.keyword(CACHE_ZONE));
    body.directive('proxy_cache_key', template(`${model.hostname}${authLocationPath(location)}${auth.cacheKey}`));
    for (const duration of auth.cacheDurations) {
      body.directive('proxy_cache_valid', ...duration.codes.map((code) => raw.integer(code)), raw.time(duration.time));
    }
  }
  body.directive('proxy_pass_request_body', raw.keyword('off'));
  const headers: Array<[string, Argument]> = [
    ['Content-Length', text('')],
    ['X-Forwarded-Proto', text('')],
    ['X-Request-ID', raw.variable(HttpVariable.requestId)],
  ];
  if (auth.method !== undefined) {
    body.directive('proxy_method', raw.httpMethod(auth.method));
    headers.push(['X-Original-URI', raw.variable('$request_uri')], ['X-Scheme', raw.variable(HttpVariable.passAccessScheme)]);
  }
  headers.push(
    ['Host', text(url.host)],
    ['X-Original-URL', template('$scheme://$http_host$request_uri')],
    ['X-Original-Method', raw.variable('$request_method')],
    ['X-Sent-From', text('nginx-ingress-controller')],
    ['X-Real-IP', raw.variable('$remote_addr')],
    ['X-Forwarded-For', raw.variable(settings.computeFullForwardedFor ? '$proxy_add_x_forwarded_for' : '$remote_addr')],
    ['X-Auth-Request-Redirect', auth.requestRedirect === undefined ? raw.variable('$request_uri') : text(auth.requestRedirect)],
  );
  // nginx's keepalive needs HTTP/1.1 (set below) without `Connection: close`.
  if (auth.keepalive !== undefined) headers.push(['Connection', text('')]);
  // The ConfigMap's headers come last, so they override Portico's (as ingress-nginx's come after its own).
  for (const [name, value] of auth.proxySetHeaders) headers.push([name, template(value)]);
  for (const [name, value] of headers) body.directive('proxy_set_header', raw.headerName(name), value);
  // The cache stores only buffered responses.
  body.directive('proxy_buffering', raw.keyword(auth.cacheKey !== undefined ? 'on' : location.annotations.proxy.buffering));
  body.directive('proxy_pass_request_headers', raw.keyword('on'));
  body.directive('client_max_body_size', raw.size(location.annotations.proxy.bodySize));
  body.directive('proxy_http_version', raw.keyword('1.1'));
  // An auth-snippet may set the retries itself (nginx refuses a second one): it then inherits the http block's.
  if (auth.snippet === undefined) renderNginxProxyDefaults(body, scope.configuration, false);
  if (url.scheme === 'https') {
    // The upstream block's name is Portico's: the TLS name is the auth service's own host.
    body.directive('proxy_ssl_server_name', raw.keyword('on'));
    body.directive('proxy_ssl_name', text(unbracketed(url.host)));
  }
  if (auth.snippet !== undefined) body.verbatim(auth.snippet);
  body.directive('proxy_pass', template(`${url.scheme}://${upstreamName(auth, location)}${url.path}`));
}

/** The 302 to the sign-in URL, with the original URL in its redirect parameter unless the URL sets that itself. */
function renderSignin(body: ConfigBuilder, auth: ExternalAuth, signin: string): void {
  body.directive('add_header', raw.headerName('Set-Cookie'), raw.variable(AUTH_COOKIE));
  if (queryParameterNames(signin).includes(auth.signinRedirectParam)) {
    body.directive('return', raw.integer(302), template(signin));
    return;
  }
  const separator = signin.includes('?') ? '&' : '?';
  // Lua appends the request URI, escaped as a query component (ingress-nginx's $escaped_request_uri).
  const prefix = `${signin}${separator}${auth.signinRedirectParam}=${HttpVariable.passAccessScheme}://$http_host`;
  body.directive('set', raw.variable(SIGNIN_URL), template(prefix));
  body.luaBlock('content_by_lua_block', SIGNIN_LUA);
}

/**
 * In the location: a 503 for a location whose auth material is unusable;
 * otherwise the auth request, the cookie and response headers it passes on,
 * and the sign-in redirect of a 401.
 */
/** With auth-keepalive, the check is a Lua call added to `accessChecks` (nginx takes one access_by_lua block per location: renderLocation.ts writes it). */
export function renderExternalAuthCheck(
  body: ConfigBuilder,
  location: Location,
  model: Server,
  scope: RenderScope,
  accessChecks: LuaCall[],
): void {
  const { settings } = scope.configuration;
  const auth = appliedExternalAuth(location, settings);
  if (auth === undefined) return;
  if (auth.denied !== undefined) {
    body.directive('return', raw.integer(503));
    return;
  }
  body.from(originOf(auth, location, scope), () => {
    if (auth.keepalive === undefined) renderAuthRequest(body, auth, location);
    else renderKeepaliveCheck(body, auth, location, auth.keepalive, accessChecks);
    body.directive(
      'add_header',
      raw.headerName('Set-Cookie'),
      raw.variable(AUTH_COOKIE),
      ...(auth.alwaysSetCookie ? [raw.keyword('always')] : []),
    );
    // An add_header here hides the server's: HSTS must be repeated.
    if (model.tls && settings.hsts) {
      body.directive(
        'add_header',
        raw.headerName('Strict-Transport-Security'),
        raw.variable(HttpVariable.hstsHeader),
        raw.keyword('always'),
      );
    }
    if (auth.signin !== undefined)
      body.directive('error_page', raw.integer(401), raw.keyword('='), raw.namedLocation(signinLocationName(location)));
  });
}

/** nginx's auth_request, which sets the cookie and response header variables from the auth response. */
function renderAuthRequest(body: ConfigBuilder, auth: ExternalAuth, location: Location): void {
  body.directive('auth_request', literal(authLocationPath(location)));
  body.directive('auth_request_set', raw.variable(AUTH_COOKIE), raw.variable('$upstream_http_set_cookie'));
  auth.responseHeaders.forEach((name, index) => {
    body.directive('auth_request_set', raw.variable(responseHeaderVariable(index)), raw.variable(upstreamHeaderVariable(name)));
  });
}

/** The Lua subrequest of auth-keepalive: the variables it reads, and those it sets (empty until it does). */
function renderKeepaliveCheck(
  body: ConfigBuilder,
  auth: ExternalAuth,
  location: Location,
  keepalive: AuthKeepalive,
  accessChecks: LuaCall[],
): void {
  body.directive('set', raw.variable(AUTH_PATH), text(authLocationPath(location)));
  body.directive('set', raw.variable(AUTH_COOKIE), text(''));
  if (auth.responseHeaders.length > 0) body.directive('set', raw.variable(RESPONSE_HEADER_NAMES), text(auth.responseHeaders.join(',')));
  auth.responseHeaders.forEach((_name, index) => body.directive('set', raw.variable(responseHeaderVariable(index)), text('')));
  accessChecks.push(luaCall('portico.external_auth', 'check', { share_vars: keepalive.shareVars }));
}

/** The request headers to the backend that carry auth-response-headers (`[name, value]`, for `<module>_set_header`). */
export function externalAuthUpstreamHeaders(location: Location, settings: GlobalSettings): Array<[string, Argument]> {
  const auth = appliedExternalAuth(location, settings);
  if (auth === undefined || auth.denied !== undefined) return [];
  return auth.responseHeaders.map((name, index) => [name, raw.variable(responseHeaderVariable(index))]);
}

function responseHeaderVariable(index: number): string {
  return `$portico_auth_response_${index}`;
}

/** `$upstream_http_<name>`: nginx's name for a response header, lower case with `_` for `-`. */
function upstreamHeaderVariable(name: string): string {
  return `$upstream_http_${name.toLowerCase().replaceAll('-', '_')}`;
}

function unbracketed(host: string): string {
  return host.startsWith('[') ? host.slice(1, -1) : host;
}
