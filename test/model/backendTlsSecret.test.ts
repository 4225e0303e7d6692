import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { before, test } from 'node:test';
import type { Secret } from '../../src/kube/objects.js';
import { backendTlsMaterial } from '../../src/model/backendTlsSecret.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { selfSignedCertificate, type TestCertificate } from '../support/tlsSecrets.js';
import { annotated, build, ingress, service, world } from './modelTestSupport.js';

let ca: TestCertificate;
let client: TestCertificate;
let other: TestCertificate;

before(async () => {
  [ca, client, other] = await Promise.all([
    selfSignedCertificate(['backend-ca.test']),
    selfSignedCertificate(['client.test']),
    selfSignedCertificate(['other.test']),
  ]);
});

const base64 = (text: string): string => Buffer.from(text).toString('base64');

function secret(name: string, data: Record<string, string>, namespace = 'app'): Secret {
  return { metadata: { name, namespace }, data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, base64(value)])) };
}

/** One Ingress in `app` with these proxy-ssl annotations, built against `secrets`. */
function buildWith(annotations: Record<string, string>, secrets: Secret[], settings = DEFAULT_SETTINGS) {
  const ing = annotated(ingress('web', 'a.test', [['/', 'Prefix', 'web']]), { 'backend-protocol': 'HTTPS', ...annotations });
  const result = build([ing], world([service('web', [{ port: 80 }])], [], secrets), { settings });
  const tls = result.configuration.servers.find((server) => server.hostname === 'a.test')?.locations[0]?.annotations.backendTls;
  return { result, tls };
}

test('ca.crt, tls.crt and tls.key become SecretFiles, re-encoded, that the location names', () => {
  const { result, tls } = buildWith({ 'proxy-ssl-secret': 'tls', 'proxy-ssl-verify': 'on' }, [
    secret('tls', { 'ca.crt': `junk before\n${ca.certificatePem}`, 'tls.crt': client.certificatePem, 'tls.key': client.keyPem }),
  ]);
  assert.deepEqual(result.problems, []);
  const files = result.configuration.secretFiles;
  assert.deepEqual(
    files.map((file) => file.id.replace(/[0-9a-f]{16}/, 'DIGEST')),
    ['app-tls-ca-DIGEST.pem', 'app-tls-client-DIGEST.pem'],
  );
  assert.deepEqual(tls?.files, { trustedCertificate: files[0]?.id, clientCertificate: files[1]?.id });
  const [caFile, clientFile] = files;
  assert.equal(caFile?.secret, 'app/tls');
  assert.ok(!caFile?.contents.includes('junk'), 'only the certificates reach the file');
  assert.equal(new X509Certificate(caFile?.contents ?? '').fingerprint256, ca.fingerprint256);
  assert.match(
    clientFile?.contents ?? '',
    /^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----[\s\S]+-----END PRIVATE KEY-----\n$/,
  );
});

test('a Secret with ca.crt only, or tls.crt and tls.key only', () => {
  const caOnly = buildWith({ 'proxy-ssl-secret': 'ca' }, [secret('ca', { 'ca.crt': ca.certificatePem })]);
  assert.equal(caOnly.tls?.files?.clientCertificate, undefined);
  assert.ok(caOnly.tls?.files?.trustedCertificate);
  const clientOnly = buildWith({ 'proxy-ssl-secret': 'client' }, [
    secret('client', { 'tls.crt': client.certificatePem, 'tls.key': client.keyPem }),
  ]);
  assert.deepEqual(clientOnly.result.problems, []);
  assert.equal(clientOnly.tls?.files?.trustedCertificate, undefined);
  assert.ok(clientOnly.tls?.files?.clientCertificate);
});

test('an unusable Secret denies the location (no files) with a Warning problem naming why', () => {
  const cases: Array<[string, Record<string, string>, Secret[], RegExp]> = [
    ['missing', { 'proxy-ssl-secret': 'absent' }, [], /Secret app\/absent not found/],
    [
      'another namespace',
      { 'proxy-ssl-secret': 'team/tls' },
      [secret('tls', { 'ca.crt': ca.certificatePem }, 'team')],
      /allow-cross-namespace-resources is false/,
    ],
    ['empty', { 'proxy-ssl-secret': 'tls' }, [secret('tls', { auth: 'user:x' })], /neither ca\.crt nor tls\.crt and tls\.key/],
    [
      'ca.crt not PEM',
      { 'proxy-ssl-secret': 'tls' },
      [secret('tls', { 'ca.crt': 'not a certificate' })],
      /ca\.crt holds no PEM certificate/,
    ],
    [
      'ca.crt damaged',
      { 'proxy-ssl-secret': 'tls' },
      [secret('tls', { 'ca.crt': ca.certificatePem.replace(/\n[A-Za-z0-9+/]{20}/, '\nAAAAAAAAAAAAAAAAAAAA') })],
      /certificate 1 of ca\.crt is not valid/,
    ],
    [
      'key of another certificate',
      { 'proxy-ssl-secret': 'tls' },
      [secret('tls', { 'tls.crt': client.certificatePem, 'tls.key': other.keyPem })],
      /tls\.key does not belong to tls\.crt/,
    ],
    [
      'tls.crt without tls.key',
      { 'proxy-ssl-secret': 'tls' },
      [secret('tls', { 'ca.crt': ca.certificatePem, 'tls.crt': client.certificatePem })],
      /go together/,
    ],
    [
      'key not PEM',
      { 'proxy-ssl-secret': 'tls' },
      [secret('tls', { 'tls.crt': client.certificatePem, 'tls.key': 'garbage' })],
      /tls\.key is not an unencrypted PEM private key/,
    ],
    [
      'verify without ca.crt',
      { 'proxy-ssl-secret': 'tls', 'proxy-ssl-verify': 'on' },
      [secret('tls', { 'tls.crt': client.certificatePem, 'tls.key': client.keyPem })],
      /has no ca\.crt to verify the backend against/,
    ],
  ];
  for (const [label, annotations, secrets, reason] of cases) {
    const { result, tls } = buildWith(annotations, secrets);
    assert.ok(tls, label);
    assert.equal(tls.files, undefined, label);
    assert.deepEqual(result.configuration.secretFiles, [], label);
    assert.equal(result.problems.length, 1, label);
    const [problem] = result.problems;
    assert.equal(problem?.severity, 'warning', label);
    assert.equal(problem?.reason, 'BackendTlsSecret', label);
    assert.deepEqual(problem?.ingress, { namespace: 'app', name: 'web' }, label);
    assert.match(problem?.message ?? '', reason, label);
    assert.match(problem?.message ?? '', /answer 503/, label);
  }
});

test("another namespace's Secret is used when allow-cross-namespace-resources is true", () => {
  const { result, tls } = buildWith({ 'proxy-ssl-secret': 'team/tls' }, [secret('tls', { 'ca.crt': ca.certificatePem }, 'team')], {
    ...DEFAULT_SETTINGS,
    allowCrossNamespaceResources: true,
  });
  assert.deepEqual(result.problems, []);
  assert.match(tls?.files?.trustedCertificate ?? '', /^team-tls-ca-/);
});

test('a new version of the Secret gives a new file; the same content the same file', () => {
  const first = buildWith({ 'proxy-ssl-secret': 'tls' }, [secret('tls', { 'ca.crt': ca.certificatePem })]).tls?.files?.trustedCertificate;
  const again = buildWith({ 'proxy-ssl-secret': 'tls' }, [secret('tls', { 'ca.crt': ca.certificatePem })]).tls?.files?.trustedCertificate;
  const edited = buildWith({ 'proxy-ssl-secret': 'tls' }, [secret('tls', { 'ca.crt': other.certificatePem })]).tls?.files
    ?.trustedCertificate;
  assert.equal(first, again);
  assert.notEqual(first, edited);
});

test('backendTlsMaterial keeps a CA bundle of several certificates and a client chain', () => {
  const material = backendTlsMaterial(
    secret('tls', {
      'ca.crt': ca.certificatePem + other.certificatePem,
      'tls.crt': client.certificatePem + ca.certificatePem,
      'tls.key': client.keyPem,
    }),
  );
  assert.ok(material.ok);
  assert.equal(material.ca?.match(/BEGIN CERTIFICATE/g)?.length, 2);
  assert.equal(material.client?.match(/BEGIN CERTIFICATE/g)?.length, 2);
  assert.equal(material.client?.match(/BEGIN PRIVATE KEY/g)?.length, 1);
});
