// Cookie affinity cases of ingress-nginx's test/e2e/annotations/affinity.go
// through a real kube-apiserver, Portico, nginx and echo backends: the
// cookie's Secure attribute over HTTPS, Partitioned, and affinity per Ingress
// path (another Ingress's path to the same Service gets no cookie).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpResult } from '../support/httpGet.js';
import { applyIngress, createService, ingress, paths, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';

let cluster: E2eCluster;

// One Service per case: a backend has one affinity, that of the oldest Ingress routing to it with one.
const SERVICES = ['secure-true', 'secure-false', 'partitioned', 'separate', 'separate-newer'];

before(async () => {
  cluster = await startE2eCluster('affinity');
  for (const service of SERVICES) await createService(cluster, service, await startBackends(cluster, service));
});
after(() => cluster?.close());

const hostOf = (name: string): string => `${name}.affinity.test`;
const COOKIE = 'SERVERID';

const withPrefix = (annotations: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));

/** An Ingress for `host`'s path `path` to the Service named after the host's first label. */
async function applyOn(name: string, host: string, path: string, annotations: Record<string, string>): Promise<void> {
  const service = host.split('.')[0] ?? '';
  await applyIngress(
    cluster,
    ingress(cluster, name, { rules: [{ host, http: { paths: paths([path, 'Prefix', service]) } }] }, withPrefix(annotations)),
  );
}

function send(host: string, path: string, https = false): Promise<HttpResult> {
  return httpGet({ port: https ? cluster.portico.ports.https : cluster.portico.ports.http, host, path, https });
}

const setCookie = (result: HttpResult): string | undefined =>
  (result.headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith(`${COOKIE}=`));

/** Waits until `path` on `host` answers from the echo backend with the affinity cookie, and returns it. */
function untilCookie(host: string, path: string, https = false): Promise<string> {
  return eventually(
    async () => {
      const result = await send(host, path, https);
      assert.equal(echoed(result).service, host.split('.')[0]);
      const cookie = setCookie(result);
      assert.ok(cookie, `no ${COOKIE} cookie on ${host}${path}: ${JSON.stringify(result.headers['set-cookie'])}`);
      return cookie;
    },
    { timeoutMs: 20_000 },
  );
}

const attributes = (cookie: string): string[] => cookie.split('; ').slice(1);

describe('session-cookie-secure', () => {
  test('"true" gives Secure over plain HTTP', async () => {
    await applyOn('secure-true', hostOf('secure-true'), '/', {
      affinity: 'cookie',
      'session-cookie-name': COOKIE,
      'session-cookie-secure': 'true',
    });
    assert.ok(attributes(await untilCookie(hostOf('secure-true'), '/')).includes('Secure'));
  });

  test('"false" gives no Secure over HTTP, and still Secure over HTTPS (as ingress-nginx)', async () => {
    const host = hostOf('secure-false');
    await applyOn('secure-false', host, '/', { affinity: 'cookie', 'session-cookie-name': COOKIE, 'session-cookie-secure': 'false' });
    assert.ok(!attributes(await untilCookie(host, '/')).includes('Secure'));
    assert.ok(attributes(await untilCookie(host, '/', true)).includes('Secure'));
  });
});

test('session-cookie-partitioned "true" adds Partitioned after SameSite', async () => {
  const host = hostOf('partitioned');
  await applyOn('partitioned', host, '/', {
    affinity: 'cookie',
    'session-cookie-name': COOKIE,
    'session-cookie-samesite': 'None',
    'session-cookie-partitioned': 'true',
  });
  const cookie = await untilCookie(host, '/', true);
  assert.deepEqual(attributes(cookie).slice(-4), ['Secure', 'HttpOnly', 'SameSite=None', 'Partitioned']);
  await applyOn('partitioned', host, '/', { affinity: 'cookie', 'session-cookie-name': COOKIE, 'session-cookie-samesite': 'None' });
  await eventually(async () => assert.ok(!attributes(await untilCookie(host, '/', true)).includes('Partitioned')), { timeoutMs: 20_000 });
});

describe('affinity is per Ingress path (ingress-nginx: "should not set affinity across all server locations when using separate ingresses")', () => {
  test("the older Ingress has affinity: its path gets the cookie, the other Ingress's path to the same Service none", async () => {
    const host = hostOf('separate');
    await applyOn('separate-1', host, '/foo/bar', { affinity: 'cookie', 'session-cookie-name': COOKIE });
    await applyOn('separate-2', host, '/foo', {});
    assert.ok(attributes(await untilCookie(host, '/foo/bar')).includes('Path=/foo/bar'));
    // Both exist now (the cookie path answered); /foo is the second Ingress's.
    await eventually(async () => assert.equal(echoed(await send(host, '/foo')).service, 'separate'));
    for (let i = 0; i < 10; i++) assert.equal(setCookie(await send(host, '/foo')), undefined, `request ${i} to /foo`);
  });

  test('the newer Ingress has affinity: its path still gets the cookie', async () => {
    const host = hostOf('separate-newer');
    await applyOn('newer-plain', host, '/foo', {});
    await applyOn('newer-sticky', host, '/foo/bar', { affinity: 'cookie', 'session-cookie-name': COOKIE });
    assert.ok(attributes(await untilCookie(host, '/foo/bar')).includes('Path=/foo/bar'));
    for (let i = 0; i < 10; i++) assert.equal(setCookie(await send(host, '/foo')), undefined, `request ${i} to /foo`);
  });
});
