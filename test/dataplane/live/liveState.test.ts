import { test } from 'node:test';
import assert from 'node:assert/strict';
import { liveStateOf, type LiveBackend } from '../../../src/dataplane/live/liveState.js';
import { renderNginxConf } from '../../../src/dataplane/nginx/render/renderNginxConf.js';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import type { Backend, Configuration } from '../../../src/model/types.js';
import { testContext } from '../nginx/render/fixtures.js';
import { annotated, build, ingress } from '../../model/modelTestSupport.js';

function backend(name: string, parts: Partial<Backend> = {}): Backend {
  return {
    name,
    service: { namespace: 'app', name, port: 80 },
    endpoints: [{ address: '10.0.0.1', port: 8080 }],
    balancing: { algorithm: 'round_robin', hashBy: undefined, affinity: undefined },
    canary: undefined,
    ...parts,
  };
}

function configuration(backends: Backend[]): Configuration {
  return {
    servers: [],
    backends,
    certificates: [],
    secretFiles: [],
    defaultCertificate: undefined,
    defaultBackend: undefined,
    settings: DEFAULT_SETTINGS,
  };
}

const liveBackends = (backends: Backend[]): unknown => JSON.parse(liveStateOf(configuration(backends), new Set()).backends);

test('a plain backend: its endpoints and algorithm; no hashing, affinity or canary', () => {
  assert.equal(
    liveStateOf(configuration([backend('web', { balancing: { algorithm: 'ewma', hashBy: undefined, affinity: undefined } })]), new Set())
      .backends,
    '{"backends":[{"name":"web","upstreamName":"app-web-80","endpoints":[{"address":"10.0.0.1","port":8080}],"loadBalance":"ewma","affinity":null,"canary":null}]}',
  );
});

test('consistent hashing: the key and its subset settings, present only with a key', () => {
  const hashBy = { key: '${host}-$request_uri', subset: true, subsetSize: 5 };
  assert.deepEqual(liveBackends([backend('web', { balancing: { algorithm: 'round_robin', hashBy, affinity: undefined } })]), {
    backends: [
      {
        name: 'web',
        upstreamName: 'app-web-80',
        endpoints: [{ address: '10.0.0.1', port: 8080 }],
        loadBalance: 'round_robin',
        hashBy: '${host}-$request_uri',
        hashBySubset: true,
        hashBySubsetSize: 5,
        affinity: null,
        canary: null,
      },
    ],
  });
});

test('affinity: the mode and every cookie field, unset ones null', () => {
  const cookie = {
    name: 'INGRESSCOOKIE',
    path: undefined,
    domain: undefined,
    maxAge: 3600,
    expires: undefined,
    secure: true,
    sameSite: 'Lax' as const,
    conditionalSameSiteNone: false,
    changeOnFailure: true,
    partitioned: true,
  };
  const affinity = { mode: 'persistent' as const, cookie, locations: { 'a.example': ['/app'] } };
  assert.deepEqual(liveBackends([backend('web', { balancing: { algorithm: 'round_robin', hashBy: undefined, affinity } })]), {
    backends: [
      {
        name: 'web',
        upstreamName: 'app-web-80',
        endpoints: [{ address: '10.0.0.1', port: 8080 }],
        loadBalance: 'round_robin',
        affinity: {
          mode: 'persistent',
          locations: { 'a.example': ['/app'] },
          cookie: {
            name: 'INGRESSCOOKIE',
            path: null,
            domain: null,
            maxAge: 3600,
            expires: null,
            secure: true,
            sameSite: 'Lax',
            conditionalSameSiteNone: false,
            changeOnFailure: true,
            partitioned: true,
          },
        },
        canary: null,
      },
    ],
  });
});

test("canary: on the primary, naming the canary's backend, unset fields null", () => {
  const canary = {
    backend: 'web-beta',
    weight: 10,
    weightTotal: 100,
    header: 'X-Beta',
    headerValue: undefined,
    headerPattern: '^(yes|1)$',
    cookie: undefined,
    affinityBehavior: 'sticky' as const,
  };
  const [primary] = (liveBackends([backend('web', { canary }), backend('web-beta')]) as { backends: { canary: unknown }[] }).backends;
  assert.deepEqual(primary?.canary, {
    backend: 'web-beta',
    weight: 10,
    weightTotal: 100,
    header: 'X-Beta',
    headerValue: null,
    headerPattern: '^(yes|1)$',
    cookie: null,
  });
});

test('from annotations to the live document', () => {
  const { configuration: built } = build([
    annotated(ingress('prod', 'h', [['/', 'Prefix', 'web']]), { affinity: 'cookie', 'session-cookie-name': 'route' }),
    annotated(ingress('beta', 'h', [['/', 'Prefix', 'web-beta']]), { canary: 'true', 'canary-by-cookie': 'beta' }),
  ]);
  const { backends } = JSON.parse(liveStateOf(built, new Set()).backends) as { backends: LiveBackend[] };
  assert.deepEqual(
    backends.map((b) => [b.name, b.upstreamName, b.loadBalance, b.affinity?.cookie.name, b.canary?.backend]),
    [
      ['app/web-beta:80', 'app-web-beta-80', 'round_robin', 'route', undefined],
      ['app/web:80', 'app-web-80', 'round_robin', 'route', 'app/web-beta:80'],
    ],
    "affinity-canary-behavior sticky (the default): the canary backend shares the primary's affinity",
  );
});

test('balancing and canary settings are live: they change the live document, never nginx.conf', () => {
  const variant = (primary: Record<string, string>, canary: Record<string, string>) =>
    build([
      annotated(ingress('prod', 'h', [['/', 'Prefix', 'web']]), primary),
      annotated(ingress('beta', 'h', [['/', 'Prefix', 'web-beta']]), { canary: 'true', ...canary }),
    ]).configuration;
  const plain = variant({}, { 'canary-weight': '10' });
  const tuned = variant(
    { 'load-balance': 'ewma', 'upstream-hash-by': '$remote_addr', affinity: 'cookie', 'session-cookie-path': '/x' },
    { 'canary-weight': '90', 'canary-by-header': 'X-Beta', 'canary-by-cookie': 'beta' },
  );
  assert.notEqual(liveStateOf(plain, new Set()).backends, liveStateOf(tuned, new Set()).backends);
  assert.equal(renderNginxConf(plain, testContext()), renderNginxConf(tuned, testContext()));
});

test('the certificates document is unchanged by balancing', () => {
  assert.equal(liveStateOf(configuration([backend('web')]), new Set()).certificates, '{"certificates":{},"servers":{},"default":null}');
});
