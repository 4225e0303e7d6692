// Builders of model objects for the renderer's tests, with ingress-nginx's defaults.
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS, type GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import type {
  Backend,
  Certificate,
  Configuration,
  Endpoint,
  IngressRef,
  Location,
  LocationAnnotations,
  PathMatch,
  RateLimits,
  Server,
} from '../../../../src/model/types.js';
import {
  createRenderContext,
  type RenderContext,
  type RenderContextOptions,
} from '../../../../src/dataplane/nginx/render/renderContext.js';

/** The repository's lua/ folder: what `nginx -t` loads in init_by_lua. */
export const LUA_DIR = fileURLToPath(new URL('../../../../lua/', import.meta.url));

/**
 * Paths relative to nginx's prefix, so one rendering works in any `nginx -t -p <dir>`;
 * the Lua modules from the repository.
 */
export function testContext(options: Partial<RenderContextOptions> = {}): RenderContext {
  return createRenderContext('', { listenAddresses: ['127.0.0.1'], luaDir: LUA_DIR, ...options });
}

export interface AnnotationOverrides {
  rewrite?: Partial<LocationAnnotations['rewrite']>;
  backendProtocol?: LocationAnnotations['backendProtocol'];
  proxy?: Partial<LocationAnnotations['proxy']>;
  ipAccess?: Partial<LocationAnnotations['ipAccess']>;
  limits?: RateLimits;
  backendTls?: LocationAnnotations['backendTls'];
  basicAuth?: LocationAnnotations['basicAuth'];
  satisfy?: LocationAnnotations['satisfy'];
  proxyTuning?: LocationAnnotations['proxyTuning'];
  nextUpstream?: LocationAnnotations['nextUpstream'];
  redirects?: LocationAnnotations['redirects'];
}

export function annotations(overrides: AnnotationOverrides = {}): LocationAnnotations {
  return {
    rewrite: { useRegex: false, sslRedirect: true, forceSslRedirect: false, ...overrides.rewrite },
    backendProtocol: overrides.backendProtocol ?? 'HTTP',
    proxy: { bodySize: '1m', connectTimeout: 5, readTimeout: 60, sendTimeout: 60, buffering: 'off', ...overrides.proxy },
    ipAccess: { allow: [], deny: [], ...overrides.ipAccess },
    ...(overrides.limits === undefined ? {} : { limits: overrides.limits }),
    ...(overrides.backendTls === undefined ? {} : { backendTls: overrides.backendTls }),
    ...(overrides.basicAuth && { basicAuth: overrides.basicAuth }),
    ...(overrides.satisfy !== undefined && { satisfy: overrides.satisfy }),
    ...(overrides.proxyTuning !== undefined && { proxyTuning: overrides.proxyTuning }),
    ...(overrides.nextUpstream !== undefined && { nextUpstream: overrides.nextUpstream }),
    ...(overrides.redirects && { redirects: overrides.redirects }),
  };
}

export const ingressRef = (namespace: string, name: string): IngressRef => ({ namespace, name });

export function location(
  path: string,
  match: PathMatch,
  backend: string | undefined,
  options: { ingress?: IngressRef | undefined; annotations?: AnnotationOverrides } = {},
): Location {
  return {
    path,
    match,
    backend,
    ingress: 'ingress' in options ? options.ingress : ingressRef('default', 'web'),
    annotations: annotations(options.annotations),
  };
}

/**
 * A server as the model makes it: when none of `locations` matches every
 * path, a generated `/` to `root` (404 when undefined) is added, as the model
 * always does.
 */
export function server(
  hostname: string,
  locations: Location[],
  options: { tls?: boolean; certificate?: string; root?: string } = {},
): Server {
  const coversEveryPath = locations.some((l) => l.match !== 'exact' && l.path === '/');
  const all = coversEveryPath ? locations : [...locations, location('/', 'prefix', options.root, { ingress: undefined })];
  return { hostname, certificate: options.certificate, tls: options.tls ?? false, locations: all };
}

export function backend(name: string, endpoints: Endpoint[], service: Partial<Backend['service']> = {}): Backend {
  return {
    name,
    service: { namespace: 'default', name: 'web', port: 80, ...service },
    endpoints,
    balancing: { algorithm: 'round_robin', hashBy: undefined, affinity: undefined },
    canary: undefined,
  };
}

export function certificate(id: string, hosts: string[]): Certificate {
  return {
    id,
    secret: `default/${id}`,
    // Live state, never read by the renderer; tests that push it to nginx use real PEMs.
    certificatePem: '',
    keyPem: '',
    hosts,
    notAfter: '2030-01-01T00:00:00Z',
  };
}

export function configuration(
  parts: Partial<Omit<Configuration, 'settings'>> & { settings?: Partial<GlobalSettings> } = {},
): Configuration {
  return {
    servers: parts.servers ?? [],
    backends: parts.backends ?? [],
    certificates: parts.certificates ?? [],
    secretFiles: parts.secretFiles ?? [],
    defaultCertificate: parts.defaultCertificate,
    defaultBackend: parts.defaultBackend,
    settings: { ...DEFAULT_SETTINGS, ...parts.settings },
  };
}

/** The Lua hooks of a proxied location with a plain HTTP upstream: none, the balancer phase does everything. */
export const BALANCER_HOOKS = [];

/** ... and where the backend or its canary uses ewma, its response times in the log phase. */
export const EWMA_BALANCER_HOOKS = [['log_by_lua_block', 'portico_balancer.log()']];

/** With a TLS or gRPC upstream, which the no-endpoints server does not speak, Lua answers 503 in the rewrite phase. */
export const REWRITE_BALANCER_HOOKS = [['rewrite_by_lua_block', 'portico_balancer.rewrite()']];
