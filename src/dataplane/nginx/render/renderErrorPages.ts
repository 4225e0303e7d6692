// custom-http-errors and default-backend (model/annotations/errorPageAnnotations.ts),
// as ingress-nginx's template renders them: a location with codes intercepts
// those upstream statuses (unless disable-proxy-intercept-errors) and hands
// them, and nginx's own errors of those codes, with `error_page` to a named
// location of its server, one per target backend and code, that proxies `/`
// through the Lua balancer to the Ingress's default-backend (when its Service
// has endpoints) or else to --default-backend-service, with the X-Code,
// X-Format, X-Original-URI... headers an error page service reads. A location
// whose Service has no endpoints is proxied to its Ingress's default-backend
// instead, with X-Code 503. Locations without these annotations get nothing.
import { createHash } from 'node:crypto';
import type { Backend, Location, Server } from '../../../model/types.js';
import { describeValue, literal, raw, text, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { BALANCER_UPSTREAM, needsBalancerFeedback, renderBalancerHooks } from './renderLua.js';
import { renderModSecurityOff } from './renderModSecurity.js';
import { renderNginxProxyDefaults } from './renderProxyInheritance.js';
import { monitorLogCalls } from './renderMonitor.js';
import type { RenderScope } from './renderScope.js';
import { HttpVariable } from './variables.js';

/** Where a location's error pages go: a backend name, or undefined for Portico's own 404 (no default backend at all). */
function errorPageTarget(location: Location, scope: RenderScope): string | undefined {
  const errorPages = location.annotations.errorPages;
  const own = errorPages?.global === true ? undefined : errorPages?.defaultBackend;
  // As ingress-nginx: the Ingress's default-backend only once its Service has an endpoint.
  if (own !== undefined && hasEndpoints(scope.backends.get(own))) return own;
  return scope.configuration.defaultBackend;
}

function hasEndpoints(backend: Backend | undefined): boolean {
  return backend !== undefined && backend.endpoints.length > 0;
}

/** `@custom_<digest of the target>_<code>`: backend names hold characters a location name may not. */
function errorLocationName(target: string | undefined, code: number): string {
  // nginx refuses the whole configuration for an error_page code outside 300-599; the model allows 400-599.
  if (!Number.isInteger(code) || code < 400 || code > 599) throw new Error(`invalid custom-http-errors code: ${describeValue(code)}`);
  const digest = createHash('sha256')
    .update(target ?? '')
    .digest('hex')
    .slice(0, 16);
  return `@custom_${digest}_${raw.integer(code).token}`;
}

/** What the request was, for the default backend: sent by the error locations and by the no-endpoints fallback. */
const REQUEST_CONTEXT_HEADERS: ReadonlyArray<[string, string]> = [
  ['X-Format', '$http_accept'],
  ['X-Namespace', '$namespace'],
  ['X-Ingress-Name', '$ingress_name'],
  ['X-Service-Name', '$service_name'],
  ['X-Service-Port', '$service_port'],
];

/** What an error location sends besides X-Code and those (ingress-nginx's CUSTOM_ERRORS template). */
const ERROR_LOCATION_HEADERS: ReadonlyArray<[string, string]> = [
  ...REQUEST_CONTEXT_HEADERS,
  ['X-Original-URI', '$request_uri'],
  ['X-Request-ID', HttpVariable.requestId],
  ['X-Forwarded-For', '$remote_addr'],
  ['Host', HttpVariable.bestHttpHost],
];

/**
 * In a proxied location, before its proxy directives (a rewrite-target's `break`
 * would skip a later `set`): the no-endpoints fallback, then the error pages.
 * `module` is the location's upstream module (`grpc_intercept_errors` for gRPC). A FastCGI
 * location has no no-endpoints fallback: the default backend speaks HTTP, not FastCGI.
 */
export function renderLocationErrorPages(
  body: ConfigBuilder,
  location: Location,
  backend: Backend | undefined,
  module: 'proxy' | 'grpc' | 'fastcgi',
  scope: RenderScope,
): void {
  const errorPages = location.annotations.errorPages;
  if (errorPages === undefined || location.backend === undefined) return;
  const own = errorPages.defaultBackend;
  if (module !== 'fastcgi' && own !== undefined && !hasEndpoints(backend) && hasEndpoints(scope.backends.get(own))) {
    // $service_name and the other log variables keep naming the location's own Service, as in ingress-nginx;
    // the location sends X-Request-ID already.
    body.directive('set', raw.variable('$proxy_upstream_name'), text(own));
    body.directive(`${module}_set_header`, raw.headerName('X-Code'), raw.integer(503));
    for (const [name, variable] of REQUEST_CONTEXT_HEADERS) {
      body.directive(`${module}_set_header`, raw.headerName(name), raw.variable(variable));
    }
  }
  if (errorPages.codes.length === 0) return;
  if (errorPages.interceptUpstream) body.directive(`${module}_intercept_errors`, raw.keyword('on'));
  const target = errorPageTarget(location, scope);
  for (const code of errorPages.codes) {
    const name = errorLocationName(target, code);
    body.directive('error_page', raw.integer(code), raw.keyword('='), raw.namedLocation(name));
  }
}

/** In a server: the named locations its locations' error_page directives name, each once. */
export function renderErrorPageLocations(server: ConfigBuilder, model: Server, scope: RenderScope): void {
  const wanted = new Map<string, { target: string | undefined; code: number }>();
  for (const location of model.locations) {
    if (location.backend === undefined) continue;
    const target = errorPageTarget(location, scope);
    for (const code of location.annotations.errorPages?.codes ?? []) wanted.set(errorLocationName(target, code), { target, code });
  }
  for (const [name, { target, code }] of [...wanted].sort(([a], [b]) => (a < b ? -1 : 1))) {
    server.block('location', [raw.namedLocation(name)], (body) => renderErrorLocation(body, target, code, scope));
  }
}

function renderErrorLocation(body: ConfigBuilder, target: string | undefined, code: number, scope: RenderScope): void {
  // An error page must not be blocked by the rules that may have caused the error.
  renderModSecurityOff(body, scope.configuration.settings);
  if (target === undefined) {
    body.directive('return', raw.integer(404));
    return;
  }
  body.directive('proxy_intercept_errors', raw.keyword('off'));
  const headers: Array<[string, Argument]> = [
    ['X-Code', raw.integer(code)],
    ...ERROR_LOCATION_HEADERS.map(([name, variable]): [string, Argument] => [name, raw.variable(variable)]),
  ];
  for (const [name, value] of headers) body.directive('proxy_set_header', raw.headerName(name), value);
  body.directive('set', raw.variable('$proxy_upstream_name'), text(target));
  // The request may have been on its way to a canary: the balancer must not retry there.
  body.directive('set', raw.variable('$proxy_alternative_upstream_name'), text(''));
  body.directive('rewrite', literal('(.*)'), literal('/'), raw.keyword('break'));
  renderBalancerHooks(body, {
    plainHttpUpstream: true,
    balancerFeedback: needsBalancerFeedback([scope.backends.get(target)]),
    logCalls: monitorLogCalls(scope.context),
  });
  renderNginxProxyDefaults(body, scope.configuration);
  body.directive('proxy_pass', raw.upstreamUrl('http', BALANCER_UPSTREAM));
}
