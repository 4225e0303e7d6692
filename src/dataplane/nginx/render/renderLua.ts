// The hooks of Portico's Lua modules (lua/README.md): endpoints and
// certificates are pushed to nginx at run time, so nginx.conf only names the
// modules, their shared dict, the one balancer upstream, and where each
// module is called. No endpoint and no certificate is ever written here.
import { posix } from 'node:path';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import type { Backend } from '../../../model/types.js';
import { filePath, literal, luaPackagePath, raw, unixSocket } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { luaBind, luaCall, type LuaCall } from './luaCall.js';
import type { RenderContext } from './renderContext.js';
import { renderModSecurityOff } from './renderModSecurity.js';
import { renderLuaSharedDicts } from './renderLuaSharedDicts.js';
import { monitorInitCalls } from './renderMonitor.js';
import { keepAliveDrainBind } from './renderKeepAliveDrain.js';

/** The upstream every proxied location passes to; Lua picks each peer. */
export const BALANCER_UPSTREAM = 'upstream_balancer';

/** Where lua/portico/balancer.lua reads the no-endpoints server's address. */
const NO_ENDPOINTS_PEER_VARIABLE = '$portico_no_endpoints_peer';

/** The Lua module needs the NDK's symbols: it is loaded first. */
const NDK_MODULE_FILE = 'ndk_http_module.so';

/** lua/portico/state.lua's dict. */
const SHARED_DICT = 'portico_configuration';
/** lua/portico/balancer/ewma.lua's scores, shared by the workers (about 400 bytes an endpoint). */
const EWMA_DICT = 'portico_balancer_ewma';
const EWMA_DICT_SIZE = '10m';

/** The Lua blocks' statements: constants, apart from init's options. init binds every module the hooks call. */
const LuaHook = {
  init: (context: RenderContext) => [
    luaBind('portico.balancer'),
    luaBind('portico.configuration'),
    luaBind('portico.certificate'),
    luaBind('portico.routes'),
    luaBind('portico.external_auth'),
    luaBind('portico.authentication'),
    luaBind('portico.worker_malloc'),
    keepAliveDrainBind,
    luaCall('portico.balancer', 'init', {
      status_port: context.ports.status,
      portico_ports: context.selfEndpoints.porticoPorts,
      refuse_loopback: context.selfEndpoints.refuseLoopback,
    }),
  ],
  initWorker: luaCall('portico.worker_malloc', 'init_worker'),
  balance: luaCall('portico.balancer', 'balance'),
  rewrite: luaCall('portico.balancer', 'rewrite'),
  log: luaCall('portico.balancer', 'log'),
  certificate: luaCall('portico.certificate', 'call'),
  clientHelloCertificate: luaCall('portico.certificate', 'client_hello'),
  handleBackends: luaCall('portico.configuration', 'handle_backends'),
  handleCertificates: luaCall('portico.configuration', 'handle_certificates'),
  handleRoutes: luaCall('portico.configuration', 'handle_routes'),
  handleAuthentication: luaCall('portico.configuration', 'handle_authentication'),
  route: luaCall('portico.routes', 'route'),
  handleInitialized: luaCall('portico.configuration', 'handle_initialized'),
} as const;

/** The main context's `load_module`s; they must come before the blocks that use the modules. */
export function renderLuaModules(main: ConfigBuilder, context: RenderContext): void {
  main.directive('load_module', filePath(posix.join(context.modulesDir, NDK_MODULE_FILE)));
  main.directive('load_module', filePath(context.luaModuleFile));
}

/** The http block's module path, shared dict, and the modules loaded in the master (workers inherit them). */
export function renderLuaSettings(http: ConfigBuilder, context: RenderContext, settings: GlobalSettings): void {
  http.directive('lua_package_path', luaPackagePath(context.luaDir));
  renderLuaSharedDicts(
    http,
    [
      { name: SHARED_DICT, size: context.liveStateMemory, ingressNginxNames: ['configuration_data', 'certificate_data'] },
      { name: EWMA_DICT, size: EWMA_DICT_SIZE, ingressNginxNames: ['balancer_ewma'] },
    ],
    settings.luaSharedDicts,
  );
  http.luaBlock('init_by_lua_block', ...LuaHook.init(context), ...monitorInitCalls(context));
  http.luaBlock('init_worker_by_lua_block', LuaHook.initWorker);
}

/**
 * The upstream of proxied locations: a placeholder server, Lua's balancer, then keep-alive.
 * `name`: another upstream just like it (its own keep-alive connections, renderBackendTls.ts).
 */
export function renderBalancerUpstream(http: ConfigBuilder, settings: GlobalSettings, name = BALANCER_UPSTREAM): void {
  http.block('upstream', [raw.upstreamName(name)], (upstream) => {
    upstream.directive('server', raw.keyword('0.0.0.1'));
    upstream.luaBlock('balancer_by_lua_block', LuaHook.balance);
    // After the balancer: nginx's keepalive wraps the peer selection that precedes it.
    if (settings.upstreamKeepaliveConnections > 0) {
      upstream.directive('keepalive', raw.integer(settings.upstreamKeepaliveConnections));
      upstream.directive('keepalive_time', raw.time(settings.upstreamKeepaliveTime));
      upstream.directive('keepalive_timeout', raw.seconds(settings.upstreamKeepaliveTimeout));
      upstream.directive('keepalive_requests', raw.integer(settings.upstreamKeepaliveRequests));
    }
  });
}

/**
 * Whether a location routing to these backends (its own and its canary's)
 * needs ewma's feedback in the log phase. Algorithms are live state, so
 * switching a backend to or from ewma changes nginx.conf by this hook (one
 * reload); between the push and that reload, ewma's in-flight counts fall
 * back when its counters are recreated (lua/README.md).
 */
export function needsBalancerFeedback(backends: ReadonlyArray<Backend | undefined>): boolean {
  // Affinity, then hashBy, choose before the algorithm does (Balancing's order): ewma then never runs.
  return backends.some(
    (backend) =>
      backend?.balancing.algorithm === 'ewma' && backend.balancing.affinity === undefined && backend.balancing.hashBy === undefined,
  );
}

/** How a proxied location reaches its backend, as far as its Lua hooks care. */
export interface BalancerHooks {
  /**
   * The upstream is plain HTTP/1.1: the balancer itself sends a backend without
   * endpoints to the no-endpoints server. Otherwise (TLS, gRPC) a rewrite hook
   * answers that 503, at the price of a Lua coroutine per request.
   */
  readonly plainHttpUpstream: boolean;
  /** ewma's feedback in the log phase (needsBalancerFeedback). */
  readonly balancerFeedback: boolean;
  /** The request metrics' calls (renderMonitor.ts). */
  readonly logCalls: readonly LuaCall[];
}

/**
 * In a proxied location, after `set $proxy_upstream_name`: the rewrite hook
 * where the upstream needs it, and the log phase: ewma's feedback, then the
 * request metrics, in the one log_by_lua_block nginx allows per location.
 * Without either the location gets no log_by_lua_block: even an empty one
 * costs every request.
 */
export function renderBalancerHooks(location: ConfigBuilder, hooks: BalancerHooks): void {
  if (!hooks.plainHttpUpstream) location.luaBlock('rewrite_by_lua_block', LuaHook.rewrite);
  const log = [...(hooks.balancerFeedback ? [LuaHook.log] : []), ...hooks.logCalls];
  if (log.length > 0) location.luaBlock('log_by_lua_block', ...log);
}

/**
 * The balancer's peer for a backend without endpoints (ngx_lua cannot answer
 * 503 from the balancer phase): a server on a unix socket that answers 503 to
 * anything, and the variable that tells the balancer its address.
 */
export function renderNoEndpointsServer(http: ConfigBuilder, context: RenderContext, settings: GlobalSettings): void {
  http.block('map', [literal(''), raw.variable(NO_ENDPOINTS_PEER_VARIABLE)], (map) => {
    map.entry(raw.keyword('default'), unixSocket(context.paths.noEndpointsSocket));
  });
  http.block('server', [], (server) => {
    server.directive('listen', unixSocket(context.paths.noEndpointsSocket));
    // The proxying location logs the request, with its backend's name.
    server.directive('access_log', raw.keyword('off'));
    // One request per connection: a kept-alive one that this server closes
    // (after a request body it did not read) failed the next request.
    server.directive('keepalive_timeout', raw.seconds(0));
    renderModSecurityOff(server, settings);
    server.block('location', [literal('/')], (location) => {
      location.directive('return', raw.integer(503));
    });
  });
}

/** The named location lua/portico/routes.lua sends a pending host's request to. */
export const PENDING_ROUTE_LOCATION = '@portico_pending';
/** ... a pending TLS host's plain HTTP request to, for its redirect to HTTPS. */
export const PENDING_ROUTE_HTTPS_REDIRECT_LOCATION = '@portico_pending_https_redirect';
/** ... a request to a pending host's generated "/" (no backend) to. */
export const PENDING_ROUTE_NOT_FOUND_LOCATION = '@portico_pending_not_found';
/** Set by lua/portico/routes.lua to the HSTS header value of a pending TLS host's HTTPS answers. */
export const PENDING_ROUTE_HSTS_VARIABLE = '$portico_pending_hsts';

/** In the catch-all server, before any location is chosen: a host nginx.conf does not have yet may be routed (renderPendingRoutes). */
export function renderPendingRouteHook(server: ConfigBuilder): void {
  server.luaBlock('server_rewrite_by_lua_block', LuaHook.route);
}

/** In a TLS server with its own context (renderTlsContext.ts): the pushed certificate for the SNI name, else the server's static ssl_certificate stays. */
export function renderCertificateHook(server: ConfigBuilder): void {
  server.luaBlock('ssl_certificate_by_lua_block', LuaHook.certificate);
}

/** In the default server of the TLS listeners: the same, from the ClientHello's SNI name, for every server without a context of its own. */
export function renderClientHelloCertificateHook(server: ConfigBuilder): void {
  server.luaBlock('ssl_client_hello_by_lua_block', LuaHook.clientHelloCertificate);
}

/** Timeouts of the configuration server: its own, so that the ConfigMap's (client-header-timeout "0"...) never stop a push. */
const CONFIGURATION_TIMEOUT_SECONDS = 60;

/** The configuration server's live-state endpoints; a push larger than the dict could never be stored. */
export function renderLiveStateEndpoints(status: ConfigBuilder, context: RenderContext): void {
  status.directive('client_max_body_size', raw.size(context.liveStateMemory));
  // The whole push in memory, not in a temporary file.
  status.directive('client_body_buffer_size', raw.size(context.liveStateMemory));
  status.directive('client_header_timeout', raw.seconds(CONFIGURATION_TIMEOUT_SECONDS));
  status.directive('client_body_timeout', raw.seconds(CONFIGURATION_TIMEOUT_SECONDS));
  status.directive('keepalive_timeout', raw.seconds(CONFIGURATION_TIMEOUT_SECONDS));
  status.directive('keepalive_requests', raw.integer(1000));
  const endpoints = [
    ['/configuration/backends', LuaHook.handleBackends],
    ['/configuration/certificates', LuaHook.handleCertificates],
    ['/configuration/routes', LuaHook.handleRoutes],
    ['/configuration/authentication', LuaHook.handleAuthentication],
    ['/is-dynamic-lb-initialized', LuaHook.handleInitialized],
  ] as const;
  for (const [path, handler] of endpoints) {
    status.block('location', [raw.keyword('='), literal(path)], (location) => {
      location.luaBlock('content_by_lua_block', handler);
    });
  }
}
