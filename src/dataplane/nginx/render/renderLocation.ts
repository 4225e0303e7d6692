// The `location` blocks of one server, in the model's order (regex locations
// are first-match), and what each does: access rules, the HTTPS redirect,
// then 404 without a backend, else proxy through the Lua balancer (which
// answers 503 for a backend it does not know or that has no endpoint); and
// the catch-all's location for hosts nginx.conf does not have yet.
import type { Backend, BackendProtocol, Location, LocationAnnotations, Server } from '../../../model/types.js';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { defaultLocationAnnotations } from '../../../model/annotations/parseIngressAnnotations.js';
import { normalizePrefix } from '../../../model/locations.js';
import { captureTemplate, describeValue, ifEquals, literal, raw, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { passesClientCertificateHeaders, renderClientCertificateHeaders } from './renderClientCertificates.js';
import { renderLocationErrorPages } from './renderErrorPages.js';
import { renderCorsHeaders, renderCorsPreflight } from './renderCors.js';
import { backendTlsUpstream, renderBackendTls } from './renderBackendTls.js';
import { externalAuthUpstreamHeaders, renderExternalAuthCheck, renderExternalAuthLocations } from './renderExternalAuth.js';
import { renderCustomHeaders, renderResponseRewrites, withUpstreamHeaders } from './renderHeaders.js';
import { escapeRegex, locationRegex, matchLimited } from './regex.js';
import {
  BALANCER_UPSTREAM,
  needsBalancerFeedback,
  PENDING_ROUTE_HSTS_VARIABLE,
  PENDING_ROUTE_HTTPS_REDIRECT_LOCATION,
  PENDING_ROUTE_LOCATION,
  PENDING_ROUTE_NOT_FOUND_LOCATION,
  renderBalancerHooks,
  renderPendingRouteHook,
} from './renderLua.js';
import { renderFastCgi } from './renderFastCgi.js';
import { renderLocationSnippet } from './renderGlobalSnippets.js';
import { renderMirror } from './renderMirror.js';
import { renderModSecurityLocation } from './renderModSecurity.js';
import { proxyHttpVersion, renderLocationProxyTuning } from './renderProxyTuning.js';
import { inheritedProxyDirectives, setsOwnHeaders, upstreamRequestHeaders } from './renderProxyInheritance.js';
import { renderAuthentication } from './renderAuthentication.js';
import type { LuaCall } from './luaCall.js';
import { monitorLogCalls } from './renderMonitor.js';
import { renderLocationRateLimits } from './renderRateLimits.js';
import { renderLocationLogs } from './renderLocationLogs.js';
import { httpsRedirectLocation, renderLocationRedirects } from './renderRedirects.js';
import type { RenderScope } from './renderScope.js';
import { CATCH_ALL_HOSTNAME } from './serverNames.js';
import { HttpVariable } from './variables.js';
import { setLocationLogVariables } from './renderLogVariables.js';

export function renderLocations(server: ConfigBuilder, model: Server, scope: RenderScope): void {
  const exactPaths = new Set(model.locations.filter((location) => location.match === 'exact').map((location) => location.path));
  requireRootLocation(model);
  for (const location of model.locations) {
    // The whole block is its Ingress's: its path, and values its annotations chose or left at the ConfigMap's defaults.
    server.from(scope.origins.ingress(location.ingress), () => {
      renderExternalAuthLocations(server, location, model, scope);
      for (const matcher of locationMatchers(location, exactPaths)) {
        server.block('location', matcher, (body) => renderLocationBody(body, location, model, scope));
      }
    });
  }
}

/**
 * The model gives every server a location matching every path (its `/`);
 * without one nginx would serve files from its own prefix, so refuse.
 */
function requireRootLocation(server: Server): void {
  const coversEveryPath = server.locations.some((location) => location.path === '/' && location.match !== 'exact');
  if (!coversEveryPath) throw new Error(`server ${describeValue(server.hostname)} has no location for every path ("/")`);
}

/**
 * The arguments of the location block(s) for one model location. A prefix
 * `/p` becomes `= /p` and `/p/` so it matches `/p` and `/p/...` but not `/px`;
 * the `=` twin is left out when the server has an exact `/p` of its own.
 */
function locationMatchers(location: Location, exactPaths: ReadonlySet<string>): Argument[][] {
  switch (location.match) {
    case 'exact':
      return [[raw.keyword('='), literal(absolutePath(location.path))]];
    case 'regex':
      return [[raw.keyword('~*'), literal(locationRegex(location.path))]];
    case 'prefix': {
      const path = prefixPath(location.path);
      if (path === '/') return [[literal('/')]];
      const exactTwin = exactPaths.has(path) ? [] : [[raw.keyword('='), literal(path)]];
      return [...exactTwin, [literal(`${path}/`)]];
    }
    default:
      throw new Error(`unknown path match: ${describeValue(location.match)}`);
  }
}

// With the modifier-less form, nginx reads a leading `=`, `~`, `^~` or `@` as a
// match type; a path starting with `/` (as the Ingress API requires) never is one.
function absolutePath(path: string): string {
  if (!path.startsWith('/')) throw new Error(`location path must start with "/": ${describeValue(path)}`);
  return path;
}

/** A prefix path without trailing slashes (`/` stays `/`). */
function prefixPath(path: string): string {
  return normalizePrefix(absolutePath(path));
}

function renderLocationBody(body: ConfigBuilder, location: Location, server: Server, scope: RenderScope): void {
  const backend = location.backend === undefined ? undefined : scope.backends.get(location.backend);
  setLocationLogVariables(body, location, backend);
  renderLocationLogs(body, location.annotations.logs);
  renderCorsPreflight(body, location, server, scope);
  renderIpAccess(body, location.annotations.ipAccess);
  renderLocationRateLimits(body, location, scope);
  // nginx takes one access_by_lua block per location: basic auth's and auth-keepalive's checks share it, in this order.
  const accessChecks: LuaCall[] = [];
  renderAuthentication(body, location.annotations, accessChecks);
  renderLocationRedirects(body, location.annotations.redirects);
  if (redirectsToHttps(location, server, scope.configuration.settings)) renderHttpsRedirect(body, location, scope);
  renderExternalAuthCheck(body, location, server, scope, accessChecks);
  renderCorsHeaders(body, location, server, scope);
  if (accessChecks.length > 0) body.luaBlock('access_by_lua_block', ...accessChecks);
  const snippet = location.annotations.configurationSnippet;
  if (snippet !== undefined) body.verbatim(snippet);
  renderLocationSnippet(body, scope.configuration.settings);
  renderModSecurityLocation(body, location.annotations.modSecurity, scope.configuration.settings, scope.context);
  renderCustomHeaders(body, location.annotations);
  // http2-push-preload: nginx reads the answer's Link headers only where asked.
  if (location.annotations.http2PushPreload) body.directive('http2_push_preload', raw.keyword('on'));

  if (location.backend === undefined) body.directive('return', raw.integer(404));
  else {
    renderMirror(body, location);
    const headersInherited = renderProxy(body, location, backend, server, scope);
    const { module } = upstreamProtocol(location.annotations.backendProtocol);
    // FastCGI has no request headers of nginx's making (the client's reach it as HTTP_* parameters).
    if (module !== 'fastcgi') renderClientCertificateHeaders(body, server, module);
    // One header of its own would hide every one of the http block's.
    if (headersInherited && setsOwnHeaders(body))
      throw new Error(`location ${describeValue(location.path)} left its headers to the http block but sets one`);
  }
}

/** Denied addresses first, then the allowlist (nginx checks in order, first match wins). */
function renderIpAccess(body: ConfigBuilder, ipAccess: LocationAnnotations['ipAccess']): void {
  for (const cidr of ipAccess.deny) body.directive('deny', raw.cidr(cidr));
  if (ipAccess.allow.length === 0) return;
  for (const cidr of ipAccess.allow) body.directive('allow', raw.cidr(cidr));
  body.directive('deny', raw.keyword('all'));
}

/** Whether plain HTTP to `location` answers the redirect to HTTPS (also the pending route's, pendingRoutes.ts). */
export function redirectsToHttps(location: Location, server: Server, settings: GlobalSettings): boolean {
  const { rewrite } = location.annotations;
  const wanted = (server.tls && rewrite.sslRedirect) || rewrite.forceSslRedirect;
  return wanted && !settings.noTlsRedirectLocations.some((prefix) => location.path.startsWith(prefix));
}

const REDIRECT_CODES: ReadonlySet<number> = new Set([301, 302, 307, 308]);

function renderHttpsRedirect(body: ConfigBuilder, location: Location, scope: RenderScope): void {
  body.block('if', ifEquals(HttpVariable.passAccessScheme, 'http'), (branch) =>
    renderHttpsRedirectReturn(branch, location.annotations.redirects, scope),
  );
}

/** The `return` of the redirect to HTTPS, with the ConfigMap's http-redirect-code (also the pending routes'). */
function renderHttpsRedirectReturn(body: ConfigBuilder, redirects: LocationAnnotations['redirects'], scope: RenderScope): void {
  const code = scope.configuration.settings.httpRedirectCode;
  if (!REDIRECT_CODES.has(code)) throw new Error(`invalid http-redirect-code: ${describeValue(code)}`);
  body.directive('return', raw.integer(code), httpsRedirectLocation(redirects, scope.context.ports.https));
}

/** The nginx module: its directives are `<module>_pass`, `<module>_connect_timeout`...; fastcgi_pass takes no scheme. */
type UpstreamProtocol =
  | { readonly module: 'proxy'; readonly scheme: 'http' | 'https' | '$scheme' }
  | { readonly module: 'grpc'; readonly scheme: 'grpc' | 'grpcs' }
  | { readonly module: 'fastcgi'; readonly scheme: undefined };

function upstreamProtocol(protocol: BackendProtocol): UpstreamProtocol {
  switch (protocol) {
    case 'HTTP':
      return { module: 'proxy', scheme: 'http' };
    case 'HTTPS':
      return { module: 'proxy', scheme: 'https' };
    case 'GRPC':
      return { module: 'grpc', scheme: 'grpc' };
    case 'GRPCS':
      return { module: 'grpc', scheme: 'grpcs' };
    case 'FCGI':
      return { module: 'fastcgi', scheme: undefined };
    case 'AUTO_HTTP':
      return { module: 'proxy', scheme: '$scheme' };
    default:
      throw new Error(`unknown backend protocol: ${describeValue(protocol)}`);
  }
}

/**
 * In the catch-all server: the routes of hosts that the running nginx.conf
 * does not have yet (dataplane/live/pendingRoutes.ts). Its Lua matches host
 * and path before any location is chosen, sets the log variables a location
 * block would, and continues in a named location that proxies like a location
 * with the ConfigMap's defaults. Other hosts never reach this server.
 */
export function renderPendingRoutes(server: ConfigBuilder, scope: RenderScope): void {
  // lua/portico/routes.lua sets it to the HSTS value for a pending TLS host's HTTPS answers; empty adds no header.
  server.directive('set', raw.variable(PENDING_ROUTE_HSTS_VARIABLE), literal(''));
  renderPendingRouteHook(server);
  const hsts = (body: ConfigBuilder): void => {
    body.directive(
      'add_header',
      raw.headerName('Strict-Transport-Security'),
      raw.variable(PENDING_ROUTE_HSTS_VARIABLE),
      raw.keyword('always'),
    );
  };
  // A pending TLS host's plain HTTP request, as its locations redirect it (default redirect annotations: the route's are).
  server.block('location', [raw.keyword(PENDING_ROUTE_HTTPS_REDIRECT_LOCATION)], (body) =>
    renderHttpsRedirectReturn(body, undefined, scope),
  );
  // The generated "/" of a pending host without one.
  server.block('location', [raw.keyword(PENDING_ROUTE_NOT_FOUND_LOCATION)], (body) => {
    hsts(body);
    body.directive('return', raw.integer(404));
  });
  server.block('location', [raw.keyword(PENDING_ROUTE_LOCATION)], (body) => {
    hsts(body);
    const plain: Location = {
      path: '/',
      match: 'prefix',
      backend: undefined,
      ingress: undefined,
      annotations: defaultLocationAnnotations(scope.configuration.settings),
    };
    renderLocationSnippet(body, scope.configuration.settings);
    const catchAll = scope.configuration.servers.find((server) => server.hostname === CATCH_ALL_HOSTNAME);
    // A pending host's backend may be ewma's: its log hook returns at once for the others.
    renderProxy(body, plain, undefined, catchAll, scope, true);
  });
}

/**
 * `backend` is undefined for a name the model does not list: the balancer answers 503 for it.
 * `server` is the location's (undefined: the pending routes' without a catch-all server).
 * `balancerFeedback`: whether ewma's log hook is needed; by default, whether the backend or its canary is ewma's.
 * Directives whose value the location inherits from the http block are left out (renderProxyInheritance.ts);
 * returns whether its request headers are.
 */
function renderProxy(
  body: ConfigBuilder,
  location: Location,
  backend: Backend | undefined,
  server: Server | undefined,
  scope: RenderScope,
  balancerFeedback?: boolean,
): boolean {
  const { annotations } = location;
  const { settings } = scope.configuration;
  const { module, scheme } = upstreamProtocol(annotations.backendProtocol);
  const inherited = inheritedProxyDirectives(location, server, scope.configuration);
  const write = (name: string, ...args: Argument[]): void => {
    if (inherited === undefined) body.directive(name, ...args);
    else inherited.write(body, name, ...args);
  };
  renderLocationErrorPages(body, location, backend, module, scope);
  // AUTO_HTTP's TLS to the backend is nginx's default (no proxy-ssl-* settings), as for an HTTP location.
  const tlsScheme = scheme === '$scheme' ? 'http' : scheme;
  // First: its `return 503` (an unusable proxy-ssl-secret or FastCGI ConfigMap) must come before a `rewrite ... break`.
  if (module === 'fastcgi') renderFastCgi(body, annotations.fastCgi);
  else renderBackendTls(body, annotations.backendTls, module, tlsScheme ?? 'http', scope.context);
  // The rewrite module's directives (the redirect above, this rewrite) run before any rewrite_by_lua in the rewrite phase.
  if (annotations.rewrite.target !== undefined) {
    body.directive('rewrite', literal(rewriteRegex(location)), captureTemplate(annotations.rewrite.target), raw.keyword('break'));
  }
  const canary = backend?.canary === undefined ? undefined : scope.backends.get(backend.canary.backend);
  renderBalancerHooks(body, {
    plainHttpUpstream: scheme === 'http',
    balancerFeedback: balancerFeedback ?? needsBalancerFeedback([backend, canary]),
    logCalls: monitorLogCalls(scope.context),
  });
  write('client_max_body_size', raw.size(annotations.proxy.bodySize));
  // The http block has proxy_'s only.
  const moduleWrite = module === 'proxy' ? write : (name: string, ...args: Argument[]) => void body.directive(name, ...args);
  moduleWrite(`${module}_connect_timeout`, raw.seconds(annotations.proxy.connectTimeout));
  moduleWrite(`${module}_read_timeout`, raw.seconds(annotations.proxy.readTimeout));
  moduleWrite(`${module}_send_timeout`, raw.seconds(annotations.proxy.sendTimeout));
  // grpc streams always: nginx has no grpc_buffering.
  if (module === 'proxy') write('proxy_buffering', raw.keyword(annotations.proxy.buffering));
  // The balancer grants one more try per attempt; these bound the retries, each to an endpoint not tried yet.
  renderLocationProxyTuning(body, annotations, settings, module, inherited);
  if (module === 'fastcgi') {
    body.directive('fastcgi_pass', raw.upstreamName(BALANCER_UPSTREAM));
    return false;
  }
  const standard = module === 'proxy' && inherited !== undefined ? inherited.headers : upstreamRequestHeaders(module, scope.configuration);
  const ownHeaders = withUpstreamHeaders(standard, annotations);
  const authHeaders = externalAuthUpstreamHeaders(location, settings);
  const headers = authHeaders.length === 0 ? ownHeaders : [...ownHeaders, ...authHeaders];
  const moreHeadersFollow = server !== undefined && passesClientCertificateHeaders(server);
  const headersInherited = module === 'proxy' && inherited !== undefined && inherited.inheritsHeaders(body, headers, moreHeadersFollow);
  if (!headersInherited) for (const [name, value] of headers) body.directive(`${module}_set_header`, raw.headerName(name), value);
  if (module === 'proxy') write('proxy_http_version', proxyHttpVersion(annotations, settings));
  // No URI part: nginx passes the request URI unchanged (or as rewritten).
  body.directive(
    `${module}_pass`,
    raw.upstreamUrl(scheme, backendTlsUpstream(annotations.backendTls, tlsScheme ?? 'http') ?? BALANCER_UPSTREAM),
  );
  renderResponseRewrites(body, annotations.responseRewrites, module);
  return headersInherited;
}

/**
 * What `rewrite` matches: in regex mode the location's own regex (as
 * ingress-nginx, case-insensitive like `~*`, match-limited like it); otherwise the literal path,
 * anchored, whole for exact and as a prefix for prefix locations.
 */
function rewriteRegex(location: Location): string {
  switch (location.match) {
    case 'regex':
      return matchLimited(`(?i)^${location.path}`);
    case 'exact':
      return `^${escapeRegex(location.path)}$`;
    case 'prefix':
      return `^${escapeRegex(prefixPath(location.path))}`;
    default:
      throw new Error(`unknown path match: ${describeValue(location.match)}`);
  }
}
