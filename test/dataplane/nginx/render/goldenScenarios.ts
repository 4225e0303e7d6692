// Representative configurations whose renderings are kept under golden/.
import type { Configuration } from '../../../../src/model/types.js';
import type { RenderContext, RenderContextOptions } from '../../../../src/dataplane/nginx/render/renderContext.js';
import { backend, certificate, configuration, ingressRef, location, server, testContext } from './fixtures.js';

export interface GoldenScenario {
  /** File name under golden/, without `.conf`. */
  readonly name: string;
  readonly configuration: Configuration;
  /** With GOLDEN_LUA_DIR, so the files do not depend on where the repository is. */
  readonly context: RenderContext;
}

/** The luaDir of the golden files; `nginx -t` runs them with the repository's lua/ instead. */
export const GOLDEN_LUA_DIR = '/usr/share/portico/lua';

function goldenContext(options: Partial<RenderContextOptions> = {}): RenderContext {
  return testContext({ luaDir: GOLDEN_LUA_DIR, ...options });
}

const web = backend('default-web-80', [
  { address: '10.0.0.1', port: 8080 },
  { address: '10.0.0.2', port: 8080 },
]);
const apiRoundRobin = backend('default-api-http', [{ address: 'fd00::12', port: 9000 }], { name: 'api', port: 'http' });
/** ewma: its locations carry the log hook, web's do not. */
const api = { ...apiRoundRobin, balancing: { ...apiRoundRobin.balancing, algorithm: 'ewma' as const } };

/** Prefix and exact paths: `/api` as both (no second `= /api`), `/` and a nested prefix. */
const plainPrefixAndExact: GoldenScenario = {
  name: 'plain-prefix-exact',
  context: goldenContext(),
  configuration: configuration({
    servers: [
      server('_', []),
      server('app.example.com', [
        location('/static/images', 'prefix', web.name),
        location('/healthz', 'exact', api.name, { ingress: ingressRef('default', 'api') }),
        location('/api', 'exact', api.name, { ingress: ingressRef('default', 'api') }),
        location('/api', 'prefix', api.name, { ingress: ingressRef('default', 'api') }),
        location('/', 'prefix', web.name),
      ]),
    ],
    backends: [api, web],
  }),
};

const captureRewrite = { rewrite: { target: '/$2', useRegex: true } };

/** Regex mode with a capture rewrite; a prefix rewrite; trusted forwarded headers; JSON access log. */
const regexWithRewrite: GoldenScenario = {
  name: 'regex-rewrite',
  context: goldenContext(),
  configuration: configuration({
    servers: [
      server('_', []),
      server('prefix-rewrite.example.com', [location('/old', 'prefix', web.name, { annotations: { rewrite: { target: '/new' } } })]),
      server('rewrite.example.com', [
        location('/something(/|$)(.*)', 'regex', web.name, { annotations: captureRewrite }),
        location('/items/[0-9]+', 'regex', api.name, { ingress: ingressRef('shop', 'items') }),
        location('/', 'regex', web.name),
      ]),
    ],
    backends: [api, web],
    settings: {
      useForwardedHeaders: true,
      computeFullForwardedFor: true,
      forwardedForHeader: 'X-Original-Forwarded-For',
      generateRequestId: false,
      logFormatEscapeJson: true,
      logFormatUpstream:
        '{"time": "$time_iso8601", "upstream": "$proxy_upstream_name", "ingress": "$namespace/$ingress_name", "path": "$location_path"}',
    },
  }),
};

const grpc = backend('grpc-greeter-50051', [{ address: '10.0.1.5', port: 50051 }], { namespace: 'grpc', name: 'greeter', port: 50051 });
const defaultBackend = backend('ingress-nginx-default-backend-80', [{ address: '10.0.9.9', port: 8080 }], {
  namespace: 'ingress-nginx',
  name: 'default-backend',
});

/**
 * TLS: a wildcard host with its own certificate, a host on the default
 * certificate (both live state: every server names the fallback), forced redirects, an ACME path left on HTTP, gRPC and HTTPS
 * upstreams, HSTS with preload, and non-standard ports.
 */
const tlsWildcardDefaultBackend: GoldenScenario = {
  name: 'tls-wildcard-default-backend',
  context: goldenContext({ ports: { http: 8080, https: 8443 } }),
  configuration: configuration({
    servers: [
      server('_', [location('/', 'prefix', defaultBackend.name, { ingress: undefined })]),
      server('*.example.com', [location('/', 'prefix', web.name)], { tls: true, certificate: 'example-com-wildcard-1' }),
      server('plain.example.com', [
        location('/', 'prefix', web.name, { annotations: { rewrite: { sslRedirect: false, forceSslRedirect: true } } }),
      ]),
      server(
        'secure.example.com',
        [
          location('/.well-known/acme-challenge/token-1', 'exact', web.name),
          location('/helloworld.Greeter', 'prefix', grpc.name, { annotations: { backendProtocol: 'GRPC' } }),
          location('/admin', 'prefix', api.name, { annotations: { backendProtocol: 'HTTPS' } }),
        ],
        { tls: true, root: defaultBackend.name },
      ),
    ],
    backends: [api, web, grpc, defaultBackend],
    certificates: [
      certificate('default-tls-2', ['*.example.com', 'secure.example.com']),
      certificate('example-com-wildcard-1', ['*.example.com']),
    ],
    defaultCertificate: 'default-tls-2',
    defaultBackend: defaultBackend.name,
    settings: { hstsPreload: true, httpRedirectCode: 301 },
  }),
};

/** Client address filters; no upstream keep-alive; access log off; a smaller live-state dict. */
const ipAccess: GoldenScenario = {
  name: 'ip-access',
  context: goldenContext({ liveStateMemory: '16m' }),
  configuration: configuration({
    servers: [
      server('_', []),
      server('internal.example.com', [
        location('/', 'prefix', web.name, {
          annotations: { ipAccess: { allow: ['10.0.0.0/8', '192.168.1.10', 'fd00::/8'], deny: ['10.6.6.0/24'] } },
        }),
        location('/public', 'prefix', web.name, { annotations: { ipAccess: { deny: ['203.0.113.0/24', '2001:db8::1'] } } }),
      ]),
    ],
    backends: [web],
    settings: { upstreamKeepaliveConnections: 0, disableAccessLog: true, proxyBodySize: '8m' },
  }),
};

const users = { secret: 'default/users', id: 'default/users@0123456789abcdef', entries: { alice: '$apr1$salt$hash' } };
const basicAuth = {
  type: 'basic' as const,
  realm: 'Staff only',
  secret: { namespace: undefined, name: 'users' },
  secretType: 'auth-file' as const,
};

/** Basic auth (only its key in nginx.conf), with `satisfy any` and an allowlist, and a location whose Secret was unusable (503). */
const authentication: GoldenScenario = {
  name: 'basic-auth',
  context: goldenContext(),
  configuration: configuration({
    servers: [
      server('_', []),
      server('staff.example.com', [
        location('/', 'prefix', web.name, { annotations: { basicAuth: { ...basicAuth, users } } }),
        location('/office', 'prefix', web.name, {
          annotations: { basicAuth: { ...basicAuth, users }, satisfy: 'any', ipAccess: { allow: ['10.0.0.0/8'] } },
        }),
        location('/broken', 'prefix', web.name, { annotations: { basicAuth: { ...basicAuth, users: undefined } } }),
      ]),
    ],
    backends: [web],
  }),
};

/** 404 without a backend; a backend without endpoints or an unknown one goes to Lua (which answers 503) all the same. */
const emptyBackends: GoldenScenario = {
  name: 'empty-backends',
  context: goldenContext(),
  configuration: configuration({
    servers: [
      server('_', []),
      server('empty.example.com', [
        location('/drained', 'prefix', 'default-drained-80'),
        location('/missing', 'exact', 'default-missing-80'),
        location('/nothing', 'prefix', undefined),
      ]),
    ],
    backends: [backend('default-drained-80', [], { name: 'drained' })],
  }),
};

export const GOLDEN_SCENARIOS: readonly GoldenScenario[] = [
  plainPrefixAndExact,
  regexWithRewrite,
  tlsWildcardDefaultBackend,
  ipAccess,
  emptyBackends,
  authentication,
];
