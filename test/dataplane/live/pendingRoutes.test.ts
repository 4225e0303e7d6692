// Which hosts the catch-all's Lua may route before their reload, and with what.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pendingRoutes } from '../../../src/dataplane/live/pendingRoutes.js';
import type { RateLimits } from '../../../src/model/types.js';
import { backend, configuration, ingressRef, location, server } from '../nginx/render/fixtures.js';

const web = backend('shop-web-80', [{ address: '10.0.0.1', port: 8080 }], { namespace: 'shop', name: 'web', port: 80 });
const RATE_LIMITED: RateLimits = {
  connections: 0,
  requestsPerSecond: 1,
  requestsPerMinute: 0,
  burstMultiplier: 5,
  allowlist: [],
  rateKilobytes: 0,
  rateAfterKilobytes: 0,
};
const api = backend('shop-api-http', [], { namespace: 'shop', name: 'api', port: 'http' });

test('a new plain host gets its routes: exact and prefix paths, backends, log variables, the generated 404 "/"', () => {
  const config = configuration({
    servers: [
      server('_', []),
      server('old.example.com', [location('/', 'prefix', web.name)]),
      server('new.example.com', [
        location('/api/', 'prefix', api.name, { ingress: ingressRef('shop', 'api') }),
        location('/login', 'exact', web.name, { ingress: ingressRef('shop', 'web') }),
      ]),
    ],
    backends: [web, api],
  });
  assert.deepEqual(pendingRoutes(config, new Set(['_', 'old.example.com'])), {
    hosts: {
      'new.example.com': [
        {
          path: '/api',
          exact: false,
          regex: false,
          backend: 'shop-api-http',
          namespace: 'shop',
          ingress: 'api',
          service: 'api',
          servicePort: 'http',
          locationPath: '/api/',
          httpsRedirect: false,
          hsts: false,
        },
        {
          path: '/login',
          exact: true,
          regex: false,
          backend: 'shop-web-80',
          namespace: 'shop',
          ingress: 'web',
          service: 'web',
          servicePort: '80',
          locationPath: '/login',
          httpsRedirect: false,
          hsts: false,
        },
        {
          path: '/',
          exact: false,
          regex: false,
          backend: null,
          namespace: '',
          ingress: '',
          service: '',
          servicePort: '',
          locationPath: '/',
          httpsRedirect: false,
          hsts: false,
        },
      ],
    },
  });
});

test("a new regex host's routes are its locations' `~*` patterns, in the order nginx tries them", () => {
  const useRegex = { annotations: { rewrite: { useRegex: true } } };
  const config = configuration({
    servers: [
      server('_', []),
      server('re.example.com', [
        location('/v[0-9]+/items', 'regex', api.name, { ingress: ingressRef('shop', 'api'), ...useRegex }),
        location('/v1', 'regex', web.name, { ingress: ingressRef('shop', 'web') }),
        location('/', 'regex', undefined),
      ]),
    ],
    backends: [web, api],
  });
  const routes = pendingRoutes(config, new Set(['_'])).hosts['re.example.com'];
  assert.deepEqual(
    routes?.map(({ path, exact, regex, backend, locationPath }) => ({ path, exact, regex, backend, locationPath })),
    [
      { path: '(*LIMIT_MATCH=100000)^/v[0-9]+/items', exact: false, regex: true, backend: 'shop-api-http', locationPath: '/v[0-9]+/items' },
      { path: '(*LIMIT_MATCH=100000)^/v1', exact: false, regex: true, backend: 'shop-web-80', locationPath: '/v1' },
      { path: '(*LIMIT_MATCH=100000)^/', exact: false, regex: true, backend: null, locationPath: '/' },
    ],
  );
});

test('hosts the running nginx.conf serves, the catch-all and wildcards are never pending', () => {
  const config = configuration({
    servers: [server('_', [location('/', 'prefix', web.name)]), server('*.example.com', []), server('a.example.com', [])],
    backends: [web],
  });
  assert.deepEqual(pendingRoutes(config, new Set(['a.example.com'])).hosts, {});
  assert.deepEqual(Object.keys(pendingRoutes(config, new Set()).hosts), ['a.example.com']);
});

test('a host waits for its reload when any location differs from what the pending route renders', () => {
  const servedNothing = new Set<string>();
  const variants = {
    ciphers: {
      ...server('h.example.com', [location('/', 'prefix', web.name)], { tls: true }),
      tlsCiphers: { ciphers: { list: 'ECDHE-RSA-AES128-GCM-SHA256', ingress: ingressRef('shop', 'web') } },
    },
    rewrite: server('h.example.com', [location('/a', 'prefix', web.name, { annotations: { rewrite: { target: '/' } } })]),
    regexRewrite: server('h.example.com', [
      location('/a(.*)', 'regex', web.name, { annotations: { rewrite: { target: '/$1', useRegex: true } } }),
      location('/', 'regex', undefined),
    ]),
    forcedRedirect: server('h.example.com', [location('/a', 'prefix', web.name, { annotations: { rewrite: { forceSslRedirect: true } } })]),
    grpc: server('h.example.com', [location('/a', 'prefix', web.name, { annotations: { backendProtocol: 'GRPC' } })]),
    allowlist: server('h.example.com', [location('/a', 'prefix', web.name, { annotations: { ipAccess: { allow: ['10.0.0.0/8'] } } })]),
    bodySize: server('h.example.com', [location('/a', 'prefix', web.name, { annotations: { proxy: { bodySize: '8m' } } })]),
    readTimeout: server('h.example.com', [location('/a', 'prefix', web.name, { annotations: { proxy: { readTimeout: 3600 } } })]),
    buffering: server('h.example.com', [location('/a', 'prefix', web.name, { annotations: { proxy: { buffering: 'on' } } })]),
    limits: server('h.example.com', [location('/a', 'prefix', web.name, { annotations: { limits: RATE_LIMITED } })]),
  };
  for (const [name, host] of Object.entries(variants)) {
    const config = configuration({ servers: [server('_', []), host], backends: [web] });
    assert.deepEqual(pendingRoutes(config, servedNothing).hosts, {}, name);
  }
  // ModSecurity's annotations are rendered in the location only: the catch-all's pending route would serve it without them.
  const waf = location('/a', 'prefix', web.name);
  const modSecurity = { ...waf, annotations: { ...waf.annotations, modSecurity: { enable: true, owaspCoreRules: true } } };
  const withModSecurity = configuration({ servers: [server('_', []), server('h.example.com', [modSecurity])], backends: [web] });
  assert.deepEqual(pendingRoutes(withModSecurity, servedNothing).hosts, {}, 'modSecurity');
  // Any part the pending route does not render keeps the host waiting, even one of a group added later: fail closed.
  const future = { ...waf, annotations: { ...waf.annotations, aGroupAddedLater: { enable: true } } as typeof waf.annotations };
  const withFuture = configuration({ servers: [server('_', []), server('h.example.com', [future])], backends: [web] });
  assert.deepEqual(pendingRoutes(withFuture, servedNothing).hosts, {}, 'a group added later');
  // The same host with every annotation at its default qualifies (the check above can fail).
  const plain = configuration({
    servers: [server('_', []), server('h.example.com', [location('/a', 'prefix', web.name)])],
    backends: [web],
  });
  assert.deepEqual(Object.keys(pendingRoutes(plain, servedNothing).hosts), ['h.example.com']);
});

test('a TLS host is pending with its redirect to HTTPS (ssl-redirect, outside no-tls-redirect-locations) and HSTS', () => {
  const config = configuration({
    servers: [
      server('_', []),
      server('tls.example.com', [location('/', 'prefix', web.name), location('/.well-known/acme', 'prefix', web.name)], {
        tls: true,
        certificate: 'shop/tls',
      }),
      server('plain.example.com', [location('/', 'prefix', web.name)]),
      server('unredirected.example.com', [location('/', 'prefix', web.name, { annotations: { rewrite: { sslRedirect: false } } })], {
        tls: true,
      }),
    ],
    backends: [web],
    settings: { noTlsRedirectLocations: ['/.well-known/acme'] },
  });
  const flags = (host: string) =>
    pendingRoutes(config, new Set()).hosts[host]?.map(({ path, httpsRedirect, hsts }) => ({ path, httpsRedirect, hsts }));
  assert.deepEqual(flags('tls.example.com'), [
    { path: '/', httpsRedirect: true, hsts: true },
    { path: '/.well-known/acme', httpsRedirect: false, hsts: true },
  ]);
  assert.deepEqual(flags('plain.example.com'), [{ path: '/', httpsRedirect: false, hsts: false }]);
  assert.deepEqual(flags('unredirected.example.com'), [{ path: '/', httpsRedirect: false, hsts: true }]);
  const withoutHsts = pendingRoutes({ ...config, settings: { ...config.settings, hsts: false } }, new Set());
  assert.equal(withoutHsts.hosts['tls.example.com']?.[0]?.hsts, false);
});

test("the defaults compared against are the ConfigMap's, not ingress-nginx's", () => {
  const host = server('h.example.com', [location('/', 'prefix', web.name, { annotations: { proxy: { bodySize: '8m' } } })]);
  const config = configuration({ servers: [server('_', []), host], backends: [web], settings: { proxyBodySize: '8m' } });
  assert.deepEqual(Object.keys(pendingRoutes(config, new Set()).hosts), ['h.example.com']);
});

test('a host with client certificates (auth-tls-*) waits for its own server block: the catch-all verifies nothing', () => {
  const plain = server('plain.example.com', [location('/', 'prefix', web.name)]);
  const verified = { ingress: ingressRef('shop', 'web'), caFile: 'shop-ca-ca-0123456789abcdef.pem', crlFile: undefined };
  const verify = {
    secret: { namespace: undefined, name: 'ca' },
    verifyClient: 'on',
    verifyDepth: 1,
    errorPage: undefined,
    passCertificateToUpstream: false,
    matchCn: undefined,
  } as const;
  const config = configuration({
    servers: [
      server('_', []),
      plain,
      { ...server('mtls.example.com', [location('/', 'prefix', web.name)]), clientCertificates: { ...verified, verify } },
      {
        ...server('refused.example.com', [location('/', 'prefix', web.name)]),
        clientCertificates: { ingress: verified.ingress, refused: 'no' },
      },
    ],
    backends: [web],
  });
  assert.deepEqual(Object.keys(pendingRoutes(config, new Set(['_'])).hosts), ['plain.example.com']);
});
