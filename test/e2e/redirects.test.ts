// Redirects nginx answers itself, through the real API server, Portico and nginx,
// with the Location ingress-nginx's e2e tests expect (approot.go, redirect.go,
// relativeredirects.go, forcesslredirect.go, preservetrailingslash.go):
// app-root, permanent/temporal-redirect with their codes, relative-redirects,
// use-port-in-redirects, and the HTTPS redirect with preserve-trailing-slash and
// X-Forwarded-* (use-forwarded-headers is on). Redirecting Ingresses route to a
// Service without ready endpoints: a request that reached the proxy would get 503.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { V1IngressTLS } from '@kubernetes/client-node';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { applyIngress, createService, ingress, paths, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { applyTlsSecret } from '../support/tlsSecrets.js';

const SETTINGS_NAME = 'redirects-settings';
const UNTIL_SERVED = { timeoutMs: 20_000 };

let cluster: E2eCluster;

const hostOf = (name: string): string => `${name}.redirects.test`;

/** Each Ingress: its host, whether it has TLS, its Service, its annotations. */
const INGRESSES: ReadonlyArray<{ name: string; tls?: boolean; service?: string; path?: string; annotations: Record<string, string> }> = [
  { name: 'approot', service: 'echo', annotations: { 'app-root': '/foo' } },
  { name: 'permanent', path: '/something', annotations: { 'permanent-redirect': 'http://redirect.example.com' } },
  {
    name: 'permanent-code',
    path: '/something',
    annotations: { 'permanent-redirect': 'http://redirect.example.com', 'permanent-redirect-code': '308' },
  },
  { name: 'temporal', annotations: { 'temporal-redirect': 'https://temporal.example/x?a=b' } },
  { name: 'temporal-code', annotations: { 'temporal-redirect': 'https://temporal.example/x', 'temporal-redirect-code': '307' } },
  { name: 'both', annotations: { 'temporal-redirect': 'http://temporal.example', 'permanent-redirect': 'http://permanent.example' } },
  { name: 'absolute', annotations: { 'permanent-redirect': '/new-location', 'relative-redirects': 'false' } },
  { name: 'relative', annotations: { 'permanent-redirect': '/new-location', 'relative-redirects': 'true' } },
  { name: 'with-port', annotations: { 'permanent-redirect': '/new-location', 'use-port-in-redirects': 'true' } },
  { name: 'https', tls: true, service: 'echo', annotations: {} },
  { name: 'https-slash', tls: true, annotations: { 'preserve-trailing-slash': 'true' } },
  { name: 'https-port', tls: true, annotations: { 'use-port-in-redirects': 'true' } },
  { name: 'https-both', tls: true, annotations: { 'use-port-in-redirects': 'true', 'preserve-trailing-slash': 'true' } },
  { name: 'tls-permanent', tls: true, annotations: { 'permanent-redirect': 'http://redirect.example.com' } },
  { name: 'tls-approot', tls: true, annotations: { 'app-root': '/foo' } },
];

before(async () => {
  const plane = await sharedControlPlane();
  const namespace = await createTestNamespace(plane.adminKubeconfig, 'redirects');
  const admin = new KubeConfig();
  admin.loadFromFile(plane.adminKubeconfig);
  await admin.makeApiClient(CoreV1Api).createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: SETTINGS_NAME }, data: { 'use-forwarded-headers': 'true' } },
  });
  cluster = await startE2eCluster('redirects', [`--configmap=${namespace}/${SETTINGS_NAME}`], { namespace });
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
  await createService(cluster, 'unready', await startBackends(cluster, 'unready'), { ready: false });
  const tlsHosts = INGRESSES.filter((spec) => spec.tls).map((spec) => hostOf(spec.name));
  await applyTlsSecret(cluster, 'redirects', [tlsHosts[0] ?? '', ...tlsHosts.slice(1)]);
  for (const { name, tls, service = 'unready', path = '/', annotations } of INGRESSES) {
    const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
    const tlsSpec: V1IngressTLS[] = tls ? [{ hosts: [hostOf(name)], secretName: 'redirects' }] : [];
    const rules = [{ host: hostOf(name), http: { paths: paths([path, 'Prefix', service]) } }];
    await applyIngress(cluster, ingress(cluster, name, { tls: tlsSpec, rules }, prefixed));
  }
});
after(() => cluster?.close());

/** `<status> <Location>` for a redirect, else the echo service's name or the status. */
async function outcome(host: string, path: string, headers: Record<string, string>): Promise<string> {
  const result = await httpGet({ port: cluster.portico.ports.http, host, path, headers });
  if (result.headers.location !== undefined) return `${result.status} ${result.headers.location}`;
  return result.status === 200 ? echoed(result).service : String(result.status);
}

/** Waits until plain HTTP `path` of the Ingress `name`'s host gets `expected`. */
function expectOutcome(name: string, path: string, expected: string, headers: Record<string, string> = {}, host = hostOf(name)) {
  return eventually(async () => assert.equal(await outcome(host, path, headers), expected, `http://${host}${path}`), UNTIL_SERVED);
}

describe('app-root', () => {
  test('exactly "/" gets a 302 to the app root on the same host, without the query', async () => {
    await expectOutcome('approot', '/', `302 http://${hostOf('approot')}/foo`);
    await expectOutcome('approot', '/?a=b', `302 http://${hostOf('approot')}/foo`);
    // $http_host, as ingress-nginx: the Host header as sent, port included.
    const withPort = `${hostOf('approot')}:${cluster.portico.ports.http}`;
    await expectOutcome('approot', '/', `302 http://${withPort}/foo`, {}, withPort);
  });

  test('other paths reach the backend', () => expectOutcome('approot', '/foo', 'echo'));

  test('on a TLS host it answers before the HTTPS redirect, which other paths still get', async () => {
    await expectOutcome('tls-approot', '/', `302 http://${hostOf('tls-approot')}/foo`);
    await expectOutcome('tls-approot', '/x', `308 https://${hostOf('tls-approot')}/x`);
  });
});

describe('permanent-redirect and temporal-redirect', () => {
  test('permanent-redirect: 301 to the URL as given, for every path of the location', async () => {
    await expectOutcome('permanent', '/something', '301 http://redirect.example.com');
    await expectOutcome('permanent', '/something/else?q=1', '301 http://redirect.example.com');
  });

  test('permanent-redirect-code sets the status', () => expectOutcome('permanent-code', '/something', '308 http://redirect.example.com'));

  test('temporal-redirect: 302, or temporal-redirect-code', async () => {
    await expectOutcome('temporal', '/p', '302 https://temporal.example/x?a=b');
    await expectOutcome('temporal-code', '/p', '307 https://temporal.example/x');
  });

  test('temporal-redirect wins over permanent-redirect', () => expectOutcome('both', '/', '302 http://temporal.example'));

  test('on a TLS host, plain HTTP gets the permanent redirect, not the HTTPS one', () =>
    expectOutcome('tls-permanent', '/p', '301 http://redirect.example.com'));
});

describe('relative-redirects and use-port-in-redirects', () => {
  test('nginx makes a relative Location absolute, without the port', () =>
    expectOutcome('absolute', '/', `301 http://${hostOf('absolute')}/new-location`));

  test('relative-redirects keeps it relative', () => expectOutcome('relative', '/', '301 /new-location'));

  test('use-port-in-redirects adds the port the request came to', () =>
    expectOutcome('with-port', '/', `301 http://${hostOf('with-port')}:${cluster.portico.ports.http}/new-location`));
});

describe('the HTTPS redirect', () => {
  const https = (name: string, pathAndQuery: string): string => `308 https://${hostOf(name)}${pathAndQuery}`;

  test('no port, the request URI without a trailing slash, the query kept', async () => {
    await expectOutcome('https', '/', https('https', ''));
    await expectOutcome('https', '/a/', https('https', '/a'));
    await expectOutcome('https', '/a/b?x=1&y=%20', https('https', '/a/b?x=1&y=%20'));
    // Only the very last character of the request URI counts, as in ingress-nginx.
    await expectOutcome('https', '/a/?q=1', https('https', '/a/?q=1'));
    const withPort = `${hostOf('https')}:${cluster.portico.ports.http}`;
    await expectOutcome('https', '/a', https('https', '/a'), {}, withPort);
  });

  test('preserve-trailing-slash keeps it', async () => {
    await expectOutcome('https-slash', '/', https('https-slash', '/'));
    await expectOutcome('https-slash', '/a/', https('https-slash', '/a/'));
  });

  test('use-port-in-redirects names the HTTPS port', async () => {
    const port = cluster.portico.ports.https;
    await expectOutcome('https-port', '/a/', `308 https://${hostOf('https-port')}:${port}/a`);
    await expectOutcome('https-both', '/a/', `308 https://${hostOf('https-both')}:${port}/a/`);
  });

  test('use-forwarded-headers: X-Forwarded-Proto https is served, the first X-Forwarded-Host is the redirect host', async () => {
    await expectOutcome('https', '/a', 'echo', { 'X-Forwarded-Proto': 'https' });
    await expectOutcome('https', '/a/', '308 https://front.example/a', { 'X-Forwarded-Host': 'front.example:8080, other.example' });
    await expectOutcome('https', '/a', '308 https://front.example/a', { 'X-Forwarded-Host': 'front.example' });
  });
});

// Last: it changes what every host of this Portico answers.
describe("the ConfigMap's relative-redirects", () => {
  test('turns absolute_redirect off everywhere, whatever the annotation says', async () => {
    await expectOutcome('absolute', '/', `301 http://${hostOf('absolute')}/new-location`);
    await cluster.core.replaceNamespacedConfigMap({
      name: SETTINGS_NAME,
      namespace: cluster.namespace,
      body: { metadata: { name: SETTINGS_NAME }, data: { 'use-forwarded-headers': 'true', 'relative-redirects': 'true' } },
    });
    await expectOutcome('absolute', '/', '301 /new-location');
    await expectOutcome('with-port', '/', '301 /new-location');
  });
});
