// The model's part of auth-tls-*: the Secret read and checked (files for nginx,
// or refusal with a problem), and the host's verification chosen from its Ingresses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret } from '../../src/kube/objects.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { createClientCertificateAuthority, type ClientCertificateAuthority } from '../support/clientCertificateAuthority.js';
import { annotated, build, ingress, problemsOf, world } from './modelTestSupport.js';

let ca: ClientCertificateAuthority;
let other: ClientCertificateAuthority;
let crl: string;

before(async () => {
  ca = await createClientCertificateAuthority('model-ca');
  other = await createClientCertificateAuthority('model-other-ca');
  crl = await ca.crl([await ca.issue('revoked')]);
});
after(async () => {
  await ca?.close();
  await other?.close();
});

function secret(name: string, data: Record<string, string>, namespace = 'app'): Secret {
  return {
    metadata: { name, namespace },
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
  };
}

/** The PEM with the last bytes of its DER cut off. */
function truncatedPem(pem: string, label: string): string {
  const der = Buffer.from(pem.replace(/-----[A-Z0-9 ]+-----|\s/g, ''), 'base64');
  return `-----BEGIN ${label}-----\n${der.subarray(0, der.length - 8).toString('base64')}\n-----END ${label}-----\n`;
}

function mtls(name: string, host: string, annotations: Record<string, string>) {
  return annotated(ingress(name, host, [[`/${name}`, 'Prefix', 'web']]), annotations);
}

function hostOf(result: ReturnType<typeof build>, host: string) {
  const server = result.configuration.servers.find((candidate) => candidate.hostname === host);
  assert.ok(server, `no server ${host}`);
  return server;
}

test('a usable Secret: the host verifies against its CA bundle and CRL, written as SecretFiles', () => {
  const result = build(
    [mtls('partner', 'a.example', { 'auth-tls-secret': 'partner-ca', 'auth-tls-verify-depth': '2' })],
    world([], [], [secret('partner-ca', { 'ca.crt': `comment before\n${ca.caPem}trailing text\n${other.caPem}`, 'ca.crl': crl })]),
  );
  assert.deepEqual(problemsOf(result), []);
  const wanted = hostOf(result, 'a.example').clientCertificates;
  assert.ok(wanted && 'verify' in wanted, JSON.stringify(wanted));
  assert.deepEqual(wanted.ingress, { namespace: 'app', name: 'partner' });
  assert.equal(wanted.verify.verifyDepth, 2);
  assert.ok(!('material' in wanted.verify));
  const files = new Map(result.configuration.secretFiles.map((file) => [file.id, file]));
  assert.match(wanted.caFile, /^app-partner-ca-ca-[0-9a-f]{16}\.pem$/);
  // Only the PEM blocks, re-armoured: the text around them is not written.
  assert.equal(files.get(wanted.caFile)?.contents, ca.caPem + other.caPem);
  assert.equal(files.get(wanted.crlFile ?? '')?.contents, crl);
  assert.equal(files.get(wanted.caFile)?.secret, 'app/partner-ca');
});

test('hosts without auth-tls-* get no verification and no files', () => {
  const result = build([annotated(ingress('plain', 'b.example', [['/', 'Prefix', 'web']]), {})]);
  assert.ok(!('clientCertificates' in hostOf(result, 'b.example')));
  assert.deepEqual(result.configuration.secretFiles, []);
});

test('the oldest Ingress of the host with usable auth-tls-* sets the verification of the whole host', () => {
  const secrets = [secret('first-ca', { 'ca.crt': ca.caPem }), secret('second-ca', { 'ca.crt': other.caPem })];
  const plain = annotated(ingress('plain', 'a.example', [['/plain', 'Prefix', 'web']]), {});
  const first = mtls('first', 'a.example', { 'auth-tls-secret': 'first-ca', 'auth-tls-verify-client': 'optional' });
  const second = mtls('second', 'a.example', { 'auth-tls-secret': 'second-ca' });
  const result = build([second, plain, first], world([], [], secrets));
  const wanted = hostOf(result, 'a.example').clientCertificates;
  assert.ok(wanted && 'verify' in wanted);
  assert.equal(wanted.ingress.name, 'first');
  assert.equal(wanted.verify.verifyClient, 'optional');
  // The resolver reads every Ingress's Secret: the newer one's bundle is a file too, unused until it is the oldest.
  assert.equal(result.configuration.secretFiles.length, 2);
});

test('unusable Secrets: the host refuses requests, with a Warning problem on the Ingress', () => {
  const secrets = [
    secret('no-ca', { 'tls.crt': ca.caPem }),
    secret('not-pem', { 'ca.crt': 'not a certificate' }),
    secret('key-in-bundle', { 'ca.crt': `${ca.caPem}-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n` }),
    secret('broken-der', { 'ca.crt': '-----BEGIN CERTIFICATE-----\nAAAAAAAA\n-----END CERTIFICATE-----\n' }),
    secret('bad-crl', { 'ca.crt': ca.caPem, 'ca.crl': ca.caPem.replaceAll('CERTIFICATE', 'X509 CRL') }),
    secret('not-pem-crl', { 'ca.crt': ca.caPem, 'ca.crl': 'revoked: everyone' }),
    secret('truncated-crl', { 'ca.crt': ca.caPem, 'ca.crl': truncatedPem(crl, 'X509 CRL') }),
    secret('elsewhere-ca', { 'ca.crt': ca.caPem }, 'other'),
  ];
  for (const [reference, reason, message] of [
    ['missing', 'MissingClientCertificateSecret', 'app/missing not found'],
    ['no-ca', 'InvalidClientCertificateSecret', 'ca.crt is missing'],
    ['not-pem', 'InvalidClientCertificateSecret', 'ca.crt is not PEM'],
    ['key-in-bundle', 'InvalidClientCertificateSecret', 'PRIVATE KEY'],
    ['broken-der', 'InvalidClientCertificateSecret', 'not an X.509 certificate'],
    ['bad-crl', 'InvalidClientCertificateSecret', 'ca.crl block 1: not a DER CertificateList'],
    ['not-pem-crl', 'InvalidClientCertificateSecret', 'ca.crl is not PEM'],
    ['truncated-crl', 'InvalidClientCertificateSecret', 'ca.crl block 1: not a DER CertificateList'],
    ['other/elsewhere-ca', 'CrossNamespaceSecret', 'allow-cross-namespace-resources is false'],
  ] as const) {
    const result = build([mtls('partner', 'a.example', { 'auth-tls-secret': reference })], world([], [], secrets));
    assert.deepEqual(problemsOf(result), [`partner ${reason}`], reference);
    assert.equal(result.problems[0]?.severity, 'warning');
    assert.ok(result.problems[0]?.message.includes(message), `${reference}: ${result.problems[0]?.message}`);
    const wanted = hostOf(result, 'a.example').clientCertificates;
    assert.ok(wanted && 'refused' in wanted, `${reference}: ${JSON.stringify(wanted)}`);
    assert.deepEqual(result.configuration.secretFiles, [], reference);
  }
});

test('one Ingress with an unusable Secret refuses the host even when an older one verifies it', () => {
  const older = mtls('older', 'a.example', { 'auth-tls-secret': 'good-ca' });
  const newer = mtls('newer', 'a.example', { 'auth-tls-secret': 'missing-ca' });
  const result = build([older, newer], world([], [], [secret('good-ca', { 'ca.crt': ca.caPem })]));
  const wanted = hostOf(result, 'a.example').clientCertificates;
  assert.ok(wanted && 'refused' in wanted);
  assert.equal(wanted.ingress.name, 'newer');
});

test('a Secret of another namespace is used when allow-cross-namespace-resources is true', () => {
  const result = build(
    [mtls('partner', 'a.example', { 'auth-tls-secret': 'certs/shared-ca' })],
    world([], [], [secret('shared-ca', { 'ca.crt': ca.caPem }, 'certs')]),
    { settings: { ...DEFAULT_SETTINGS, allowCrossNamespaceResources: true } },
  );
  assert.deepEqual(problemsOf(result), []);
  const wanted = hostOf(result, 'a.example').clientCertificates;
  assert.ok(wanted && 'verify' in wanted);
  assert.match(wanted.caFile, /^certs-shared-ca-ca-/);
});
