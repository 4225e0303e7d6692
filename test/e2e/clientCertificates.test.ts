// Client certificates (auth-tls-*) through a real kube-apiserver, Portico,
// nginx and echo backends, with CAs, client certificates and CRLs made by the
// test: verification per host by SNI although certificates come from Lua, the
// ssl-client-* headers upstream, optional verification, match-cn, the error
// page, revocation, and refusal (503 with a Warning Event, never an open host)
// when the Secret is missing, unreadable or in another namespace.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createClientCertificateAuthority,
  type ClientCertificate,
  type ClientCertificateAuthority,
} from '../support/clientCertificateAuthority.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpGetOptions, type HttpResult } from '../support/httpGet.js';
import { applyTlsSecret } from '../support/tlsSecrets.js';
import { applyIngress, createService, ingress, paths, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';
import { applySecret } from '../support/applySecret.js';

const UNTIL_SERVED = { timeoutMs: 20_000 };

let cluster: E2eCluster;
let partnerCa: ClientCertificateAuthority;
let otherCa: ClientCertificateAuthority;
let partnerA: ClientCertificate;
let partnerB: ClientCertificate;
let stranger: ClientCertificate;

before(async () => {
  cluster = await startE2eCluster('mtls');
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
  partnerCa = await createClientCertificateAuthority('partner-ca');
  otherCa = await createClientCertificateAuthority('other-ca');
  partnerA = await partnerCa.issue('partner-a');
  partnerB = await partnerCa.issue('partner-b');
  stranger = await otherCa.issue('partner-a');
  await applySecret(cluster, 'partner-ca', { 'ca.crt': partnerCa.caPem });
});
after(async () => {
  await cluster?.close();
  await partnerCa?.close();
  await otherCa?.close();
});

function hostOf(name: string): string {
  return `${name}.mtls.test`;
}

/** An Ingress for the host named after it, over TLS (a certificate of its own), every path to `echo`, with these auth-tls-* annotations. */
async function applyMtlsIngress(name: string, annotations: Record<string, string>): Promise<void> {
  const host = hostOf(name);
  await applyTlsSecret(cluster, `${name}-tls`, [host]);
  await applyIngress(
    cluster,
    ingress(
      cluster,
      name,
      { tls: [{ hosts: [host], secretName: `${name}-tls` }], rules: [{ host, http: { paths: paths(['/', 'Prefix', 'echo']) } }] },
      Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value])),
    ),
  );
}

type Request = Omit<HttpGetOptions, 'port' | 'host' | 'https'> & { host?: string };

function send(name: string, certificate: ClientCertificate | undefined, options: Request = {}): Promise<HttpResult> {
  return httpGet({ port: cluster.portico.ports.https, host: hostOf(name), https: true, clientCertificate: certificate, ...options });
}

/** Waits until a request with `certificate` gets `status`; returns that answer. */
function untilStatus(name: string, certificate: ClientCertificate | undefined, status: number, options: Request = {}): Promise<HttpResult> {
  return eventually(async () => {
    const result = await send(name, certificate, options);
    assert.equal(
      result.status,
      status,
      `https://${hostOf(name)}/ with ${certificate?.commonName ?? 'no certificate'}: ${result.body.slice(0, 200)}`,
    );
    return result;
  }, UNTIL_SERVED);
}

/** Waits for a Warning Event on the Ingress with `reason` and a message matching `message`. */
function untilWarning(name: string, reason: string, message: RegExp): Promise<void> {
  return eventually(async () => {
    const events = await cluster.core.listNamespacedEvent({ namespace: cluster.namespace, fieldSelector: `involvedObject.name=${name}` });
    const warnings = events.items.filter((event) => event.type === 'Warning' && event.reason === reason);
    assert.ok(
      warnings.some((event) => message.test(event.message ?? '')),
      `no ${reason} Warning Event matching ${message} on ${name}: ${JSON.stringify(warnings.map((event) => event.message))}`,
    );
  }, UNTIL_SERVED);
}

describe('auth-tls-verify-client: on (the default)', () => {
  before(async () => {
    await applyMtlsIngress('required', { 'auth-tls-secret': 'partner-ca' });
    await applyMtlsIngress('plain', {});
    await untilStatus('required', partnerA, 200);
  });

  test('a request without a client certificate gets 400', async () => {
    await untilStatus('required', undefined, 400);
  });

  test('a certificate of another CA (same CN) gets 400', async () => {
    await untilStatus('required', stranger, 400);
  });

  test('a certificate of the CA reaches the backend with the ssl-client-* headers, without the certificate itself', async () => {
    const { headers } = echoed(await untilStatus('required', partnerA, 200));
    assert.equal(headers['ssl-client-verify'], 'SUCCESS');
    assert.equal(headers['ssl-client-subject-dn'], 'CN=partner-a');
    assert.equal(headers['ssl-client-issuer-dn'], 'CN=partner-ca');
    assert.equal(headers['ssl-client-cert'], undefined);
  });

  test('a client cannot pass the verification headers itself', async () => {
    const { headers } = echoed(await untilStatus('required', partnerA, 200, { headers: { 'ssl-client-subject-dn': 'CN=admin' } }));
    assert.equal(headers['ssl-client-subject-dn'], 'CN=partner-a');
  });

  test('another TLS host on the same port asks for no certificate and gets no ssl-client-* headers', async () => {
    const { headers } = echoed(await untilStatus('plain', undefined, 200));
    assert.equal(headers['ssl-client-verify'], undefined);
  });

  test('the Host of the mTLS host over a handshake without SNI still needs the certificate (400)', async () => {
    await untilStatus('required', undefined, 400, { servername: '' });
  });

  test('the Host of the mTLS host over the other host’s handshake is refused (421)', async () => {
    await untilStatus('required', undefined, 421, { servername: hostOf('plain') });
  });
});

describe('the other auth-tls-* annotations', () => {
  test('auth-tls-pass-certificate-to-upstream sends the URL-encoded PEM in ssl-client-cert', async () => {
    await applyMtlsIngress('pass', { 'auth-tls-secret': 'partner-ca', 'auth-tls-pass-certificate-to-upstream': 'true' });
    const { headers } = echoed(await untilStatus('pass', partnerA, 200));
    assert.equal(decodeURIComponent(headers['ssl-client-cert'] ?? ''), partnerA.certificatePem);
  });

  test('optional: no certificate passes with ssl-client-verify NONE, a foreign one still gets 400', async () => {
    await applyMtlsIngress('optional', { 'auth-tls-secret': 'partner-ca', 'auth-tls-verify-client': 'optional' });
    await untilStatus('optional', stranger, 400);
    const { headers } = echoed(await untilStatus('optional', undefined, 200));
    assert.equal(headers['ssl-client-verify'], 'NONE');
    assert.equal(echoed(await untilStatus('optional', partnerA, 200)).headers['ssl-client-verify'], 'SUCCESS');
  });

  test('auth-tls-match-cn refuses a verified certificate with another CN (403)', async () => {
    await applyMtlsIngress('match', { 'auth-tls-secret': 'partner-ca', 'auth-tls-match-cn': 'CN=(nobody|partner-b)$' });
    await untilStatus('match', partnerB, 200);
    const refused = await untilStatus('match', partnerA, 403);
    assert.match(refused.body, /client certificate unauthorized/);
  });

  test('auth-tls-error-page redirects a request that failed verification (302)', async () => {
    const page = 'http://errors.mtls.test:8080/client-certificate';
    await applyMtlsIngress('errorpage', { 'auth-tls-secret': 'partner-ca', 'auth-tls-error-page': page });
    assert.equal((await untilStatus('errorpage', undefined, 302)).headers.location, page);
    assert.equal((await untilStatus('errorpage', stranger, 302)).headers.location, page);
    await untilStatus('errorpage', partnerA, 200);
  });

  test('ca.crl: a revoked certificate gets 400, the others pass', async () => {
    await applySecret(cluster, 'partner-ca-crl', { 'ca.crt': partnerCa.caPem, 'ca.crl': await partnerCa.crl([partnerB]) });
    await applyMtlsIngress('revoked', { 'auth-tls-secret': 'partner-ca-crl' });
    await untilStatus('revoked', partnerA, 200);
    await untilStatus('revoked', partnerB, 400);
  });
});

describe('an unusable Secret: the host refuses every request (503) with a Warning Event', () => {
  test('a missing Secret, then served once it exists', async () => {
    await applyMtlsIngress('missing', { 'auth-tls-secret': 'missing-ca' });
    await untilWarning('missing', 'MissingClientCertificateSecret', /missing-ca not found/);
    await untilStatus('missing', undefined, 503);
    await untilStatus('missing', partnerA, 503);
    await applySecret(cluster, 'missing-ca', { 'ca.crt': partnerCa.caPem });
    await untilStatus('missing', partnerA, 200);
    await untilStatus('missing', undefined, 400);
  });

  test('a ca.crt that is not PEM, and a Secret without ca.crt', async () => {
    await applySecret(cluster, 'garbage-ca', { 'ca.crt': 'not a certificate' });
    await applyMtlsIngress('garbage', { 'auth-tls-secret': 'garbage-ca' });
    await untilWarning('garbage', 'InvalidClientCertificateSecret', /ca\.crt is not PEM/);
    await untilStatus('garbage', partnerA, 503);
    await applySecret(cluster, 'garbage-ca', { 'tls.crt': partnerCa.caPem });
    await untilWarning('garbage', 'InvalidClientCertificateSecret', /ca\.crt is missing/);
    await untilStatus('garbage', partnerA, 503);
  });

  test('a Secret of another namespace (allow-cross-namespace-resources is false by default)', async () => {
    await applyMtlsIngress('foreign', { 'auth-tls-secret': 'kube-system/partner-ca' });
    await untilWarning('foreign', 'CrossNamespaceSecret', /allow-cross-namespace-resources/);
    await untilStatus('foreign', partnerA, 503);
    await untilStatus('foreign', undefined, 503);
  });
});

// A new plain-HTTP host is routed by the catch-all server's Lua before its
// reload (pending routes); that server verifies nothing, so an mTLS host must wait.
test('a new mTLS host without spec.tls is never answered without verification before its reload', async () => {
  const host = hostOf('fresh');
  await applyIngress(
    cluster,
    ingress(
      cluster,
      'fresh',
      { rules: [{ host, http: { paths: paths(['/', 'Prefix', 'echo']) } }] },
      {
        'nginx.ingress.kubernetes.io/auth-tls-secret': 'partner-ca',
      },
    ),
  );
  const statuses: number[] = [];
  await eventually(async () => {
    const { status } = await send('fresh', undefined);
    statuses.push(status);
    assert.equal(status, 400);
  }, UNTIL_SERVED);
  assert.deepEqual(
    statuses.filter((status) => status === 200),
    [],
    `answers before verification: ${statuses.join(' ')}`,
  );
  await untilStatus('fresh', partnerA, 200);
});
