// Per-SNI certificates through lua/portico/certificate.lua: pushed live to the
// status server, chosen by exact host, one-label wildcard, then the default;
// the static (fake) certificate whenever none applies.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpGet } from '../support/httpGet.js';
import {
  luaProblems,
  missingLuaNginx,
  pushCertificates,
  selfSignedCertificate,
  startLuaNginx,
  statusRequest,
  type CertificatesDocument,
  type RunningLuaNginx,
} from './luaNginx.js';

const TEST_TIMEOUT_MS = 60_000;

interface TestCertificate {
  readonly pem: string;
  readonly fingerprint: string;
}

let nginx: RunningLuaNginx;
let certDir: string;
let exact: TestCertificate;
let wildcard: TestCertificate;
let fallback: TestCertificate;
let rotated: TestCertificate;
let fakeFingerprint: string;

async function certificate(stem: string, names: readonly string[]): Promise<TestCertificate> {
  const { cert, pem } = await selfSignedCertificate(certDir, stem, names);
  return { pem, fingerprint: new X509Certificate(cert).fingerprint256 };
}

/** The certificate nginx presents for this SNI (undefined: no SNI) and the server block that answered. */
async function served(serverName: string | undefined): Promise<{ fingerprint: string; body: string }> {
  const result = await httpGet({ port: nginx.ports.https, https: true, ...(serverName === undefined ? {} : { host: serverName }) });
  assert.equal(result.status, 200);
  const fingerprint = result.certificate?.fingerprint256;
  assert.ok(fingerprint, 'the server presented a certificate');
  return { fingerprint, body: result.body };
}

async function servedFingerprint(serverName: string | undefined): Promise<string> {
  return (await served(serverName)).fingerprint;
}

function document(certificates: Record<string, TestCertificate>, servers: Record<string, string>, defaultId: string | null): CertificatesDocument {
  return {
    certificates: Object.fromEntries(Object.entries(certificates).map(([id, { pem }]) => [id, pem])),
    servers,
    default: defaultId,
  };
}

before(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'portico-lua-certs-'));
  exact = await certificate('exact', ['a.example.test']);
  wildcard = await certificate('wildcard', ['*.example.test']);
  fallback = await certificate('default', ['default.test']);
  rotated = await certificate('rotated', ['a.example.test']);
  nginx = await startLuaNginx();
  fakeFingerprint = new X509Certificate(nginx.fakeCertificatePem).fingerprint256;
});

after(async () => {
  await nginx?.stop();
  if (certDir !== undefined) await rm(certDir, { recursive: true, force: true });
});

const options = { timeout: TEST_TIMEOUT_MS, skip: missingLuaNginx };

test('before any push every handshake gets the static certificate', options, async () => {
  assert.equal(await servedFingerprint('a.example.test'), fakeFingerprint);
  assert.equal(await servedFingerprint(undefined), fakeFingerprint);
  assert.equal((await statusRequest(nginx.ports.status, 'GET', '/configuration/certificates')).status, 404);
});

test('SNI picks the exact host, then the one-label wildcard, then the default; no SNI gets the default', options, async () => {
  const pushed = await pushCertificates(nginx.ports.status,
    document({ exact, wildcard, fallback }, { 'A.Example.Test': 'exact', '*.example.test': 'wildcard' }, 'fallback'));
  assert.equal(pushed.status, 201, pushed.body);

  assert.equal(await servedFingerprint('a.example.test'), exact.fingerprint);
  assert.equal(await servedFingerprint('A.EXAMPLE.TEST'), exact.fingerprint, 'host names compare case-insensitively');
  assert.equal(await servedFingerprint('b.example.test'), wildcard.fingerprint);
  assert.equal(await servedFingerprint('x.b.example.test'), fallback.fingerprint, 'a wildcard covers one label only');
  assert.equal(await servedFingerprint('example.test'), fallback.fingerprint);
  assert.equal(await servedFingerprint('elsewhere.test'), fallback.fingerprint);
  assert.equal(await servedFingerprint(undefined), fallback.fingerprint);

  const stored = await statusRequest(nginx.ports.status, 'GET', '/configuration/certificates');
  assert.equal(stored.status, 200);
  const storedDocument = JSON.parse(stored.body) as { default?: string; certificates?: string[] };
  assert.equal(storedDocument.default, 'fallback');
  // GET names the certificates; it never serves their PEMs (each holds a private key).
  assert.deepEqual(storedDocument.certificates, ['exact', 'fallback', 'wildcard']);
  assert.doesNotMatch(stored.body, /PRIVATE KEY|BEGIN/);
});

test('a server without a TLS context of its own and one with its own both serve the pushed certificate of their name', options, async () => {
  const pushed = await pushCertificates(nginx.ports.status,
    document({ exact, wildcard, fallback }, { 'a.example.test': 'exact', 'own.example.test': 'wildcard' }, 'fallback'));
  assert.equal(pushed.status, 201, pushed.body);
  // Set by the default server's ClientHello hook; the request still goes to the SNI's server block.
  assert.deepEqual(await served('a.example.test'), { fingerprint: exact.fingerprint, body: 'tls without a context\n' });
  // Its own context replaces the one the ClientHello hook set a certificate in; its own hook sets it again.
  assert.deepEqual(await served('own.example.test'), { fingerprint: wildcard.fingerprint, body: 'tls with its own context\n' });
  assert.deepEqual(await served('elsewhere.test'), { fingerprint: fallback.fingerprint, body: 'tls\n' });
});

test('a rotated certificate is served from the next handshake on, without a reload', options, async () => {
  const workers = nginx.workerPids();
  // Warm both workers' parsed-certificate caches with the old one.
  for (let i = 0; i < 6; i++) assert.equal(await servedFingerprint('a.example.test'), exact.fingerprint);

  const pushed = await pushCertificates(nginx.ports.status,
    document({ exact: rotated, wildcard, fallback }, { 'a.example.test': 'exact', '*.example.test': 'wildcard' }, 'fallback'));
  assert.equal(pushed.status, 201, pushed.body);
  for (let i = 0; i < 6; i++) {
    assert.equal(await servedFingerprint('a.example.test'), rotated.fingerprint);
    assert.equal(await servedFingerprint('b.example.test'), wildcard.fingerprint);
  }
  assert.deepEqual(nginx.workerPids(), workers);
});

test('without a default, an unmatched name keeps the static certificate', options, async () => {
  const pushed = await pushCertificates(nginx.ports.status, document({ exact }, { 'a.example.test': 'exact' }, null));
  assert.equal(pushed.status, 201, pushed.body);
  assert.equal(await servedFingerprint('a.example.test'), exact.fingerprint);
  assert.equal(await servedFingerprint('b.example.test'), fakeFingerprint);
  assert.equal(await servedFingerprint(undefined), fakeFingerprint);
});

test('a certificate that does not parse is logged and the handshake keeps the static certificate', options, async () => {
  const broken = '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nbm8=\n-----END PRIVATE KEY-----\n';
  const pushed = await statusRequest(nginx.ports.status, 'POST', '/configuration/certificates',
    JSON.stringify({ certificates: { broken, exact: exact.pem }, servers: { 'broken.test': 'broken', 'a.example.test': 'exact' }, default: null }));
  assert.equal(pushed.status, 201, pushed.body);
  assert.equal(await servedFingerprint('broken.test'), fakeFingerprint);
  assert.equal(await servedFingerprint('broken.test'), fakeFingerprint);
  assert.equal(await servedFingerprint('a.example.test'), exact.fingerprint);
  assert.match(nginx.errorLog(), /certificate broken: cannot parse the certificate chain/);
});

test('an invalid certificates push is refused with 400 and the stored one keeps serving', options, async () => {
  const pushed = await pushCertificates(nginx.ports.status, document({ exact, fallback }, { 'a.example.test': 'exact' }, 'fallback'));
  assert.equal(pushed.status, 201, pushed.body);
  const refusals: [string, RegExp][] = [
    ['{"certificates": {', /not JSON/],
    ['{"certificates": {"x": "not a pem"}, "servers": {}}', /certificates\["x"\] must hold a PEM/],
    [JSON.stringify({ certificates: { exact: exact.pem }, servers: { 'a.test': 'missing' }, default: null }), /unknown certificate "missing"/],
    [JSON.stringify({ certificates: { exact: exact.pem }, servers: {}, default: 'missing' }), /"default" must be null or the id/],
    ['{"servers": {}}', /"certificates" must be an object/],
  ];
  for (const [body, message] of refusals) {
    const refused = await statusRequest(nginx.ports.status, 'POST', '/configuration/certificates', body);
    assert.equal(refused.status, 400, body);
    assert.match(refused.body, message);
  }
  assert.equal(await servedFingerprint('a.example.test'), exact.fingerprint);
  assert.equal(await servedFingerprint('other.test'), fallback.fingerprint);
});

test('certificates are independent of backends: pushing them does not initialize the balancer', options, async () => {
  assert.equal((await statusRequest(nginx.ports.status, 'GET', '/is-dynamic-lb-initialized')).status, 404);
});

test('no Lua errors or global writes were logged', options, () => {
  assert.deepEqual(luaProblems(nginx.errorLog()), []);
});
