// Where requests no rule matches go: --default-backend-service, an Ingress's
// spec.defaultBackend for its own hosts, a rules-less catch-all Ingress for
// unmatched hosts, and --disable-catch-all, which ignores the latter.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1IngressBackend } from '@kubernetes/client-node';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { applyIngress, createService, ingress, paths, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';

/** Owns the namespace and the Services; runs with --disable-catch-all. */
let withoutCatchAll: E2eCluster;
/** A second Portico on the same namespace, with --default-backend-service=<namespace>/fallback. */
let withDefaultService: E2eCluster;

before(async () => {
  withoutCatchAll = await startE2eCluster('default-backend', ['--disable-catch-all']);
  for (const service of ['fallback', 'app', 'own-default', 'catch-all']) {
    await createService(withoutCatchAll, service, await startBackends(withoutCatchAll, service));
  }
  // A second Portico in the same namespace (with a class of its own), whose
  // --default-backend-service names a Service created above.
  const { namespace } = withoutCatchAll;
  withDefaultService = await startE2eCluster('default-backend-service', [`--default-backend-service=${namespace}/fallback`], { namespace });
});
after(async () => {
  await withDefaultService?.close();
  await withoutCatchAll?.close();
});

/** Where a request went: the echo service's name, or the HTTP status when no backend answered. */
async function routeOf(portico: E2eCluster, host: string, path: string): Promise<string> {
  const result = await httpGet({ port: portico.portico.ports.http, host, path });
  return result.status === 200 ? echoed(result).service : String(result.status);
}

async function expectRoute(portico: E2eCluster, host: string, path: string, expected: string): Promise<void> {
  await eventually(async () => assert.equal(await routeOf(portico, host, path), expected, `${host}${path}`), { timeoutMs: 15_000 });
}

function backendOf(service: string): V1IngressBackend {
  return { service: { name: service, port: { number: 80 } } };
}

/** `/app` on `host` to the app Service, and optionally an Ingress-wide default backend. */
function applyAppIngress(portico: E2eCluster, name: string, host: string, defaultService?: string): Promise<void> {
  return applyIngress(
    portico,
    ingress(portico, name, {
      ...(defaultService === undefined ? {} : { defaultBackend: backendOf(defaultService) }),
      rules: [{ host, http: { paths: paths(['/app', 'Prefix', 'app']) } }],
    }),
  );
}

/** An Ingress with only spec.defaultBackend, to the catch-all Service. */
function applyCatchAllIngress(portico: E2eCluster, name: string): Promise<void> {
  return applyIngress(portico, ingress(portico, name, { defaultBackend: backendOf('catch-all') }));
}

// Both Porticos share the namespace, so their Ingresses need names (and, for clarity, hosts) of their own.
describe('--default-backend-service', () => {
  const knownHost = 'known.default-backend.test';
  const ownDefaultHost = 'own.default-backend.test';
  const unmatchedHost = 'nobody.default-backend.test';

  test('an unmatched host goes to the default backend Service', () => expectRoute(withDefaultService, unmatchedHost, '/', 'fallback'));

  test('an unmatched path on a known host goes to the default backend Service', async () => {
    await applyAppIngress(withDefaultService, 'known', knownHost);
    await expectRoute(withDefaultService, knownHost, '/app', 'app');
    await expectRoute(withDefaultService, knownHost, '/elsewhere', 'fallback');
  });

  test("an Ingress's spec.defaultBackend answers its own hosts' unmatched paths, not other hosts'", async () => {
    await applyAppIngress(withDefaultService, 'known', knownHost);
    await applyAppIngress(withDefaultService, 'own-default', ownDefaultHost, 'own-default');
    await expectRoute(withDefaultService, ownDefaultHost, '/elsewhere', 'own-default');
    await expectRoute(withDefaultService, ownDefaultHost, '/app', 'app');
    await expectRoute(withDefaultService, knownHost, '/elsewhere', 'fallback');
  });

  // Last: from here on every unmatched host of this Portico goes to the catch-all.
  test('a catch-all Ingress takes unmatched hosts; known hosts keep the default backend Service', async () => {
    await applyAppIngress(withDefaultService, 'known', knownHost);
    await applyCatchAllIngress(withDefaultService, 'catch-all');
    await expectRoute(withDefaultService, unmatchedHost, '/', 'catch-all');
    await expectRoute(withDefaultService, knownHost, '/elsewhere', 'fallback');
  });
});

describe('--disable-catch-all', () => {
  test('a catch-all Ingress is ignored; an Ingress with rules and a default backend is not', async () => {
    const keptHost = 'kept.no-catch-all.test';
    await applyCatchAllIngress(withoutCatchAll, 'ignored-catch-all');
    // Applied after the catch-all Ingress and watched on the same stream:
    // once it serves, Portico has seen the catch-all one too.
    await applyAppIngress(withoutCatchAll, 'kept-own-default', keptHost, 'own-default');
    await expectRoute(withoutCatchAll, keptHost, '/elsewhere', 'own-default');
    assert.equal(await routeOf(withoutCatchAll, 'nobody.no-catch-all.test', '/'), '404');
  });
});
