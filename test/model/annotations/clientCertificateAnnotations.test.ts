import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseErrorPage, parseMatchCn } from '../../../src/model/annotations/clientCertificateAnnotations.js';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

test('no client certificates without auth-tls-secret', () => {
  assert.equal(accepted({}).value.location.clientCertificates, undefined);
  assert.ok(!('clientCertificates' in accepted({}).value.location));
});

test("auth-tls-secret alone takes ingress-nginx's defaults: verify on, depth 1, nothing passed upstream", () => {
  assert.deepEqual(accepted({ 'auth-tls-secret': 'partner-ca' }).value.location.clientCertificates, {
    secret: { namespace: undefined, name: 'partner-ca' },
    verifyClient: 'on',
    verifyDepth: 1,
    errorPage: undefined,
    passCertificateToUpstream: false,
    matchCn: undefined,
  });
});

test('every auth-tls-* annotation is read', () => {
  const { clientCertificates } = accepted({
    'auth-tls-secret': 'certs/partner-ca',
    'auth-tls-verify-client': 'optional_no_ca',
    'auth-tls-verify-depth': '3',
    'auth-tls-error-page': 'https://Errors.Example.com:8443/mtls/denied.html',
    'auth-tls-pass-certificate-to-upstream': 'true',
    'auth-tls-match-cn': 'CN=(partner-a|partner-b)',
  }).value.location;
  assert.deepEqual(clientCertificates, {
    secret: { namespace: 'certs', name: 'partner-ca' },
    verifyClient: 'optional_no_ca',
    verifyDepth: 3,
    errorPage: 'https://errors.example.com:8443/mtls/denied.html',
    passCertificateToUpstream: true,
    matchCn: 'CN=(partner-a|partner-b)',
  });
});

test('auth-tls-verify-depth 0 means the default (1), as in ingress-nginx', () => {
  const { clientCertificates } = accepted({ 'auth-tls-secret': 'ca', 'auth-tls-verify-depth': '0' }).value.location;
  assert.equal(clientCertificates?.verifyDepth, 1);
});

test('every verify mode nginx has', () => {
  for (const mode of ['on', 'off', 'optional', 'optional_no_ca'] as const) {
    const { clientCertificates } = accepted({ 'auth-tls-secret': 'ca', 'auth-tls-verify-client': mode }).value.location;
    assert.equal(clientCertificates?.verifyClient, mode);
  }
});

test('the other annotations without auth-tls-secret are ignored with a warning', () => {
  const { value, warnings } = accepted({ 'auth-tls-verify-client': 'off', 'auth-tls-match-cn': 'CN=a' });
  assert.equal(value.location.clientCertificates, undefined);
  assert.deepEqual(warnings.sort(), [
    `annotation ${PREFIX}/auth-tls-match-cn: ignored without auth-tls-secret`,
    `annotation ${PREFIX}/auth-tls-verify-client: ignored without auth-tls-secret`,
  ]);
});

test('invalid and hostile values are refused, naming the annotation', () => {
  for (const [name, value, expected] of [
    ['auth-tls-secret', 'a/b/c', 'namespace/name'],
    ['auth-tls-secret', 'Partner', 'namespace/name'],
    ['auth-tls-secret', 'ca;ssl_verify_client off', 'namespace/name'],
    ['auth-tls-verify-client', 'ON', 'one of on, off, optional, optional_no_ca'],
    ['auth-tls-verify-client', 'on; return 200', 'one of on, off'],
    ['auth-tls-verify-depth', '-1', 'an integer'],
    ['auth-tls-verify-depth', '1e3', 'an integer'],
    ['auth-tls-error-page', '@portico_pending', 'an http(s) URL or a path'],
    ['auth-tls-error-page', 'ok.com/error', 'an http(s) URL or a path'],
    ['auth-tls-error-page', 'https://x.example/$host', 'an http(s) URL or a path'],
    ['auth-tls-error-page', 'https://x.example/a b', 'an http(s) URL or a path'],
    ['auth-tls-error-page', 'https://x.example/";return 200;"', 'an http(s) URL or a path'],
    ['auth-tls-error-page', 'https://user@x.example/', 'an http(s) URL or a path'],
    ['auth-tls-error-page', 'https://x.example:99999/', 'an http(s) URL or a path'],
    ['auth-tls-error-page', 'javascript:alert(1)', 'an http(s) URL or a path'],
    ['auth-tls-pass-certificate-to-upstream', 'yes', '"true" or "false"'],
    ['auth-tls-match-cn', 'partner-a', '"CN=" followed by'],
    ['auth-tls-match-cn', 'CN=(a', 'CN='],
    ['auth-tls-match-cn', 'CN=(?<x>a)', 'named groups'],
    ['auth-tls-match-cn', 'CN=(a+)+$', 'CN='],
    ['auth-tls-match-cn', 'CN=a") { return 200; } if ($x ~ "', 'CN='],
    ['auth-tls-match-cn', `CN=${'a'.repeat(300)}`, 'CN='],
  ] as const) {
    assertRefusedWith({ 'auth-tls-secret': 'ca', [name]: value }, [`${PREFIX}/${name}`, expected]);
  }
});

test('auth-tls-error-page is rebuilt from what was checked', () => {
  assert.deepEqual(parseErrorPage('http://EXAMPLE.com:080/x/'), { ok: true, value: 'http://example.com:80/x/' });
  assert.deepEqual(parseErrorPage('/mtls-error'), { ok: true, value: '/mtls-error' });
  assert.deepEqual(parseErrorPage('https://example.com'), { ok: true, value: 'https://example.com' });
  assert.equal(parseErrorPage('https://-bad.example/').ok, false);
  assert.equal(parseErrorPage('https://example.com/a/../b').ok, true);
  assert.equal(parseErrorPage('//example.com/x').ok, false);
});

test('auth-tls-match-cn keeps its CN= (the whole value is matched against the subject DN)', () => {
  assert.deepEqual(parseMatchCn('CN=partner-[ab]$'), { ok: true, value: 'CN=partner-[ab]$' });
});

test("the risk levels are ingress-nginx's: match-cn and error-page High, secret and verify-client Medium, the rest Low", () => {
  for (const name of ['auth-tls-match-cn', 'auth-tls-error-page']) {
    const value = name === 'auth-tls-match-cn' ? 'CN=a' : '/denied';
    assertRefusedWith({ 'auth-tls-secret': 'ca', [name]: value }, [name, 'risk level High'], { annotationsRiskLevel: 'Medium' });
  }
  for (const [name, value] of [
    ['auth-tls-secret', 'ca'],
    ['auth-tls-verify-client', 'on'],
  ] as const) {
    accepted({ [name]: value }, { annotationsRiskLevel: 'Medium' });
    assertRefusedWith({ [name]: value }, [name, 'risk level Medium'], { annotationsRiskLevel: 'Low' });
  }
  accepted(
    { 'auth-tls-secret': 'ca', 'auth-tls-verify-depth': '2', 'auth-tls-pass-certificate-to-upstream': 'true' },
    {
      annotationsRiskLevel: 'Medium',
    },
  );
});
