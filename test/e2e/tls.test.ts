// TLS termination through real nginx: certificates chosen by SNI from the
// Secrets in spec.tls, the fallbacks (fake certificate, --default-ssl-certificate),
// the oldest-Ingress rule, HTTP→HTTPS redirects, HSTS, rotation of a Secret
// while running, and that no Secret's private key is written to disk.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Ingress, V1IngressRule } from '@kubernetes/client-node';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpResult } from '../support/httpGet.js';
import type { PorticoProcess } from '../support/porticoProcess.js';
import { applyTlsSecret, type TestCertificate } from '../support/tlsSecrets.js';
import { applyIngress, createService, ingress, paths, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';

/** ingress-nginx's name for its self-signed fallback, which users and monitoring recognise. */
const FAKE_CERTIFICATE_CN = 'Kubernetes Ingress Controller Fake Certificate';
const SSL_REDIRECT = 'nginx.ingress.kubernetes.io/ssl-redirect';
const FORCE_SSL_REDIRECT = 'nginx.ingress.kubernetes.io/force-ssl-redirect';
/** How long a change in the cluster may take to be served. */
const UNTIL_SERVED = { timeoutMs: 20_000 };

let cluster: E2eCluster;

before(async () => {
  cluster = await startE2eCluster('tls');
});
after(() => cluster?.close());

/** A Service named `service` with an echo backend that answers as `service`. */
async function serve(target: E2eCluster, service: string): Promise<void> {
  await createService(target, service, await startBackends(target, service));
}

/** A rule sending every path of `host` to `service`. */
function rootRule(host: string, service: string): V1IngressRule {
  return { host, http: { paths: paths(['/', 'Prefix', service]) } };
}

/** An Ingress serving `host` over TLS with the certificate in Secret `secretName`, every path to `service`. */
function tlsIngress(
  target: E2eCluster,
  name: string,
  { host, secretName, service }: { host: string; secretName: string; service: string },
  annotations: Record<string, string> = {},
): V1Ingress {
  return ingress(target, name, { tls: [{ hosts: [host], secretName }], rules: [rootRule(host, service)] }, annotations);
}

/** Who answered: the echo service's name, or the HTTP status when no backend did. */
function answerOf(result: HttpResult): string {
  return result.status === 200 ? echoed(result).service : String(result.status);
}

/** A certificate as the assertions compare it: the fake one by its CN, any other by CN and fingerprint. */
function certificateName(certificate: TestCertificate | 'fake'): string {
  return certificate === 'fake' ? FAKE_CERTIFICATE_CN : `${certificate.commonName} ${certificate.fingerprint256}`;
}

/**
 * The certificate an HTTPS request got and who answered it. `host` is both the
 * SNI and the Host header; without one the client sends no SNI, as when it
 * dials an IP address.
 */
async function httpsOutcome(
  portico: PorticoProcess,
  host: string | undefined,
  path = '/',
): Promise<{ certificate: string; answer: string }> {
  const result = await httpGet({ port: portico.ports.https, host, path, https: true });
  const peer = result.certificate;
  const certificate =
    peer?.subject.CN === FAKE_CERTIFICATE_CN ? FAKE_CERTIFICATE_CN : `${String(peer?.subject.CN)} ${peer?.fingerprint256}`;
  return { certificate, answer: answerOf(result) };
}

async function expectHttps(
  portico: PorticoProcess,
  host: string | undefined,
  certificate: TestCertificate | 'fake',
  answer: string,
): Promise<void> {
  const expected = { certificate: certificateName(certificate), answer };
  const url = `https://${host ?? '(no SNI)'}/`;
  await eventually(async () => assert.deepEqual(await httpsOutcome(portico, host), expected, url), UNTIL_SERVED);
}

describe('certificates chosen by SNI', () => {
  test('each host gets the certificate of its own Secret and reaches its own backend', async () => {
    await serve(cluster, 'sni-one');
    await serve(cluster, 'sni-two');
    const one = await applyTlsSecret(cluster, 'sni-one', ['one.sni.test']);
    const two = await applyTlsSecret(cluster, 'sni-two', ['two.sni.test']);
    await applyIngress(
      cluster,
      ingress(cluster, 'sni', {
        tls: [
          { hosts: ['one.sni.test'], secretName: 'sni-one' },
          { hosts: ['two.sni.test'], secretName: 'sni-two' },
        ],
        rules: [rootRule('one.sni.test', 'sni-one'), rootRule('two.sni.test', 'sni-two')],
      }),
    );
    await expectHttps(cluster.portico, 'one.sni.test', one, 'sni-one');
    await expectHttps(cluster.portico, 'two.sni.test', two, 'sni-two');
  });

  test('a wildcard certificate covers a host one label below it, and no deeper', async () => {
    await serve(cluster, 'wildcard');
    const wildcard = await applyTlsSecret(cluster, 'wildcard', ['*.tls.test']);
    await applyIngress(
      cluster,
      ingress(cluster, 'wildcard', {
        tls: [{ hosts: ['a.tls.test', 'b.a.tls.test'], secretName: 'wildcard' }],
        rules: [rootRule('a.tls.test', 'wildcard'), rootRule('b.a.tls.test', 'wildcard')],
      }),
    );
    await expectHttps(cluster.portico, 'a.tls.test', wildcard, 'wildcard');
    await expectHttps(cluster.portico, 'b.a.tls.test', 'fake', 'wildcard');
  });

  // The Ingress API lets spec.tls omit hosts; ingress-nginx then gives each rule
  // host of that Ingress the entry whose certificate covers it (extractTLSSecretName).
  test('a spec.tls entry without hosts serves the rule hosts its certificate covers', async () => {
    const host = 'hostless.tls.test';
    await serve(cluster, 'hostless');
    const certificate = await applyTlsSecret(cluster, 'hostless', [host]);
    await applyIngress(cluster, ingress(cluster, 'hostless', { tls: [{ secretName: 'hostless' }], rules: [rootRule(host, 'hostless')] }));
    // Once the route answers, the configuration is served: the certificate needs no more waiting.
    await eventually(async () => assert.equal((await httpsOutcome(cluster.portico, host)).answer, 'hostless'), UNTIL_SERVED);
    assert.equal((await httpsOutcome(cluster.portico, host)).certificate, certificateName(certificate));
  });
});

describe('the fake certificate when no valid certificate covers the name', () => {
  before(async () => {
    await serve(cluster, 'fallback');
    const valid = await applyTlsSecret(cluster, 'fallback-valid', ['valid.fallback.test']);
    await applyTlsSecret(cluster, 'fallback-other-host', ['other.fallback.test']);
    await applyIngress(
      cluster,
      ingress(cluster, 'fallback', {
        tls: [
          { hosts: ['valid.fallback.test'], secretName: 'fallback-valid' },
          { hosts: ['missing.fallback.test'], secretName: 'fallback-absent' },
          { hosts: ['mismatch.fallback.test'], secretName: 'fallback-other-host' },
        ],
        rules: ['valid', 'missing', 'mismatch'].map((name) => rootRule(`${name}.fallback.test`, 'fallback')),
      }),
    );
    // Until nginx runs a configuration with a real certificate, every name gets
    // the fake one, and the tests below would prove nothing.
    await expectHttps(cluster.portico, 'valid.fallback.test', valid, 'fallback');
  });

  test('a host whose Secret does not exist still serves traffic', () =>
    expectHttps(cluster.portico, 'missing.fallback.test', 'fake', 'fallback'));

  test('a host its Secret’s certificate does not cover (SAN mismatch) still serves traffic', () =>
    expectHttps(cluster.portico, 'mismatch.fallback.test', 'fake', 'fallback'));

  test('an SNI no Ingress names', () => expectHttps(cluster.portico, 'nobody.fallback.test', 'fake', '404'));

  test('a client that sends no SNI', () => expectHttps(cluster.portico, undefined, 'fake', '404'));
});

describe('--default-ssl-certificate', () => {
  let withDefault: E2eCluster;
  let defaultCertificate: TestCertificate;

  before(async () => {
    defaultCertificate = await applyTlsSecret(cluster, 'default-certificate', ['default.tls.test']);
    // A second Portico in the same namespace (serving only its own class) whose flag names the Secret above.
    withDefault = await startE2eCluster('tls-default', [`--default-ssl-certificate=${cluster.namespace}/default-certificate`], {
      namespace: cluster.namespace,
    });
    await serve(withDefault, 'default-app');
    const own = await applyTlsSecret(withDefault, 'default-own', ['own.default.test']);
    await applyIngress(
      withDefault,
      ingress(withDefault, 'default-certificate', {
        tls: [
          { hosts: ['own.default.test'], secretName: 'default-own' },
          { hosts: ['absent.default.test'], secretName: 'default-absent' },
        ],
        rules: [rootRule('own.default.test', 'default-app'), rootRule('absent.default.test', 'default-app')],
      }),
    );
    // A host with a certificate of its own keeps it.
    await expectHttps(withDefault.portico, 'own.default.test', own, 'default-app');
  });
  after(() => withDefault?.close());

  test('replaces the fake certificate for a TLS host whose Secret is missing', () =>
    expectHttps(withDefault.portico, 'absent.default.test', defaultCertificate, 'default-app'));

  test('replaces the fake certificate for unknown SNI and for no SNI', async () => {
    await expectHttps(withDefault.portico, 'nobody.default.test', defaultCertificate, '404');
    await expectHttps(withDefault.portico, undefined, defaultCertificate, '404');
  });
});

test('the oldest Ingress listing a host in spec.tls supplies its certificate', async () => {
  const host = 'age.tls.test';
  await serve(cluster, 'age-older');
  await serve(cluster, 'age-newer');
  const older = await applyTlsSecret(cluster, 'age-older', [host]);
  await applyTlsSecret(cluster, 'age-newer', [host]);
  // Named so that the tie-break of equal creation times (names in descending
  // order) would pick the newer one: only the age makes the older one win.
  await applyIngress(
    cluster,
    ingress(cluster, 'age-a', {
      tls: [{ hosts: [host], secretName: 'age-older' }],
      rules: [{ host, http: { paths: paths(['/older', 'Prefix', 'age-older']) } }],
    }),
  );
  await sleep(1_100); // creationTimestamp counts whole seconds
  await applyIngress(
    cluster,
    ingress(cluster, 'age-b', {
      tls: [{ hosts: [host], secretName: 'age-newer' }],
      rules: [{ host, http: { paths: paths(['/newer', 'Prefix', 'age-newer']) } }],
    }),
  );
  // Once the newer Ingress's path answers, nginx runs a configuration with both.
  await eventually(async () => assert.equal((await httpsOutcome(cluster.portico, host, '/newer')).answer, 'age-newer'), UNTIL_SERVED);
  assert.deepEqual(await httpsOutcome(cluster.portico, host, '/older'), { certificate: certificateName(older), answer: 'age-older' });
});

describe('HTTP to HTTPS redirects', () => {
  /** Where a plain HTTP request ended: `<status> <Location>` for a redirect, else who answered. */
  async function httpOutcome(host: string, path: string): Promise<string> {
    const result = await httpGet({ port: cluster.portico.ports.http, host, path });
    return result.headers.location === undefined ? answerOf(result) : `${result.status} ${result.headers.location}`;
  }

  async function expectHttp(host: string, path: string, expected: string): Promise<void> {
    await eventually(async () => assert.equal(await httpOutcome(host, path), expected, `http://${host}${path}`), UNTIL_SERVED);
  }

  // As ingress-nginx: no port (use-port-in-redirects adds it, test/e2e/redirects.test.ts).
  const httpsUrl = (host: string, pathAndQuery: string): string => `https://${host}${pathAndQuery}`;

  before(async () => {
    await serve(cluster, 'redirect-app');
    await serve(cluster, 'acme-solver');
    await applyTlsSecret(cluster, 'redirect', ['redirect.tls.test', 'kept.tls.test']);
    const redirectApp = { secretName: 'redirect', service: 'redirect-app' };
    await applyIngress(cluster, tlsIngress(cluster, 'redirect', { host: 'redirect.tls.test', ...redirectApp }));
    // cert-manager's HTTP-01 solver: an Ingress of its own, without TLS, for one path of the host.
    await applyIngress(
      cluster,
      ingress(cluster, 'acme-solver', {
        rules: [{ host: 'redirect.tls.test', http: { paths: paths(['/.well-known/acme-challenge/token', 'Exact', 'acme-solver']) } }],
      }),
    );
    await applyIngress(cluster, tlsIngress(cluster, 'no-redirect', { host: 'kept.tls.test', ...redirectApp }, { [SSL_REDIRECT]: 'false' }));
    await applyIngress(
      cluster,
      ingress(cluster, 'forced', { rules: [rootRule('forced.tls.test', 'redirect-app')] }, { [FORCE_SSL_REDIRECT]: 'true' }),
    );
  });

  test('a TLS host answers 308 to the same path and query over HTTPS', () => {
    const pathAndQuery = '/some/path?x=1&y=%20';
    // Clients put a non-default port in the Host header; the redirect must drop it.
    const hostWithPort = `redirect.tls.test:${cluster.portico.ports.http}`;
    return expectHttp(hostWithPort, pathAndQuery, `308 ${httpsUrl('redirect.tls.test', pathAndQuery)}`);
  });

  test('ssl-redirect "false" serves a TLS host over plain HTTP', () => expectHttp('kept.tls.test', '/page', 'redirect-app'));

  test('force-ssl-redirect "true" redirects a host without TLS', () =>
    expectHttp('forced.tls.test', '/page?q', `308 ${httpsUrl('forced.tls.test', '/page?q')}`));

  test('the ACME HTTP-01 challenge of a TLS host stays on plain HTTP', () =>
    expectHttp('redirect.tls.test', '/.well-known/acme-challenge/token', 'acme-solver'));
});

test('HSTS on HTTPS answers of TLS hosts only', async () => {
  await serve(cluster, 'hsts-app');
  await applyTlsSecret(cluster, 'hsts', ['hsts.tls.test']);
  // Without the redirect, plain HTTP to the TLS host gets a real answer whose headers can be checked.
  await applyIngress(
    cluster,
    ingress(
      cluster,
      'hsts',
      {
        tls: [{ hosts: ['hsts.tls.test'], secretName: 'hsts' }],
        rules: [rootRule('hsts.tls.test', 'hsts-app')],
      },
      { [SSL_REDIRECT]: 'false' },
    ),
  );
  // Its own Ingress: every rule host of an Ingress with spec.tls is a TLS host (as in ingress-nginx).
  await applyIngress(cluster, ingress(cluster, 'hsts-plain', { rules: [rootRule('plain.hsts.test', 'hsts-app')] }));
  const hstsOf = async (host: string, https: boolean): Promise<string> => {
    const result = await httpGet({ port: https ? cluster.portico.ports.https : cluster.portico.ports.http, host, https });
    return `${answerOf(result)}: ${result.headers['strict-transport-security'] ?? 'no HSTS'}`;
  };
  const hsts = 'max-age=31536000; includeSubDomains';
  await eventually(async () => assert.equal(await hstsOf('hsts.tls.test', true), `hsts-app: ${hsts}`), UNTIL_SERVED);
  // eventually: for a moment after a reload, an old worker may still take a new connection (and 404 the host).
  await eventually(async () => assert.equal(await hstsOf('hsts.tls.test', false), 'hsts-app: no HSTS'), UNTIL_SERVED);
  // Over HTTPS too, a host without TLS (served with the fake certificate) must not pin browsers to HTTPS.
  // Its Ingress may reach nginx in a later sync than the first one's.
  await eventually(async () => assert.equal(await hstsOf('plain.hsts.test', true), 'hsts-app: no HSTS'), UNTIL_SERVED);
});

test('a replaced Secret is served without restarting Portico', async () => {
  const host = 'rotate.tls.test';
  await serve(cluster, 'rotate-app');
  const first = await applyTlsSecret(cluster, 'rotate', [host]);
  await applyIngress(cluster, tlsIngress(cluster, 'rotate', { host, secretName: 'rotate', service: 'rotate-app' }));
  await expectHttps(cluster.portico, host, first, 'rotate-app');
  const second = await applyTlsSecret(cluster, 'rotate', [host]);
  assert.notEqual(second.fingerprint256, first.fingerprint256);
  await expectHttps(cluster.portico, host, second, 'rotate-app');
});

test("Secrets' private keys never touch the disk; the fake certificate's key is the owner's only", async () => {
  const host = 'keys.tls.test';
  await serve(cluster, 'keys-app');
  const certificate = await applyTlsSecret(cluster, 'keys', [host]);
  await applyIngress(cluster, tlsIngress(cluster, 'keys', { host, secretName: 'keys', service: 'keys-app' }));
  await expectHttps(cluster.portico, host, certificate, 'keys-app');

  // Certificates travel to nginx's shared memory over its loopback status port; only the fake one is a file.
  const dir = join(cluster.portico.prefix, 'certs');
  const files = await readdir(dir);
  assert.deepEqual(files, ['fake.pem']);
  const prefixFiles = await readdir(cluster.portico.prefix, { recursive: true });
  for (const file of prefixFiles) {
    const path = join(cluster.portico.prefix, String(file));
    if (!(await stat(path)).isFile()) continue;
    assert.ok(!(await readFile(path, 'utf8')).includes(certificate.keyPem.trim()), `${path} holds a Secret's private key`);
  }
  const modeOf = async (path: string): Promise<string> => ((await stat(path)).mode & 0o777).toString(8);
  assert.equal(await modeOf(join(dir, 'fake.pem')), '600');
  assert.equal(await modeOf(dir), '700');
});
