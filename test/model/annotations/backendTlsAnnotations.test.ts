import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProxySslName } from '../../../src/model/annotations/backendTlsAnnotations.js';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

const SECRET = { 'proxy-ssl-secret': 'backend-tls' };

test('without proxy-ssl-secret there is no backend TLS configuration', () => {
  assert.equal(accepted({}).value.location.backendTls, undefined);
});

test("proxy-ssl-secret alone takes ingress-nginx's defaults; the Secret is looked up by the model", () => {
  assert.deepEqual(accepted(SECRET).value.location.backendTls, {
    secret: { namespace: undefined, name: 'backend-tls' },
    files: undefined,
    verify: false,
    verifyDepth: 1,
    ciphers: 'DEFAULT',
    protocols: ['TLSv1.2'],
    name: undefined,
    serverName: false,
  });
  assert.deepEqual(accepted({ 'proxy-ssl-secret': 'team/ca' }).value.location.backendTls?.secret, { namespace: 'team', name: 'ca' });
});

test('every proxy-ssl annotation with proxy-ssl-secret', () => {
  const { value, warnings } = accepted({
    ...SECRET,
    'proxy-ssl-verify': 'on',
    'proxy-ssl-verify-depth': '3',
    'proxy-ssl-ciphers': 'ECDHE-ECDSA-AES128-GCM-SHA256:HIGH:!aNULL',
    'proxy-ssl-protocols': 'TLSv1.3 TLSv1.2 TLSv1.3',
    'proxy-ssl-name': 'backend.internal',
    'proxy-ssl-server-name': 'on',
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(value.location.backendTls, {
    secret: { namespace: undefined, name: 'backend-tls' },
    files: undefined,
    verify: true,
    verifyDepth: 3,
    ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256:HIGH:!aNULL',
    // Sorted and deduplicated, as ingress-nginx.
    protocols: ['TLSv1.2', 'TLSv1.3'],
    name: 'backend.internal',
    serverName: true,
  });
  // 0 is the default depth, as in ingress-nginx.
  assert.equal(accepted({ ...SECRET, 'proxy-ssl-verify-depth': '0' }).value.location.backendTls?.verifyDepth, 1);
});

test('proxy-ssl-name (High risk) is refused under annotations-risk-level Medium, the others are not', () => {
  assertRefusedWith({ ...SECRET, 'proxy-ssl-name': 'a.example' }, ['proxy-ssl-name', 'risk level High'], {
    annotationsRiskLevel: 'Medium',
  });
  accepted({ ...SECRET, 'proxy-ssl-ciphers': 'HIGH', 'proxy-ssl-verify': 'off' }, { annotationsRiskLevel: 'Medium' });
});

test('without proxy-ssl-secret the other annotations are ignored with a warning, and verify: on is refused', () => {
  const { value, warnings } = accepted({ 'proxy-ssl-name': 'a.example', 'proxy-ssl-verify': 'off', 'proxy-ssl-protocols': 'TLSv1.3' });
  assert.equal(value.location.backendTls, undefined);
  assert.deepEqual(warnings.sort(), [
    `annotation ${PREFIX}/proxy-ssl-name: ignored: it has no effect without proxy-ssl-secret`,
    `annotation ${PREFIX}/proxy-ssl-protocols: ignored: it has no effect without proxy-ssl-secret`,
    `annotation ${PREFIX}/proxy-ssl-verify: ignored: it has no effect without proxy-ssl-secret`,
  ]);
  assertRefusedWith({ 'proxy-ssl-verify': 'on' }, ['proxy-ssl-verify', 'needs proxy-ssl-secret', 'unverified']);
});

test('invalid values are refused', () => {
  const invalid: Record<string, string[]> = {
    'proxy-ssl-secret': ['a/b/c', 'Upper', '../etc', 'ns/', 'a b', '"; ssl_engine x;'],
    'proxy-ssl-verify': ['true', 'On', 'yes', 'on;'],
    'proxy-ssl-server-name': ['true', '1', 'of'],
    'proxy-ssl-verify-depth': ['-1', '1.5', 'two', '101', '0x2'],
    'proxy-ssl-ciphers': ['NOT-A-CIPHER', '!ALL', 'HIGH;ssl_engine', '"; } ssl_engine /tmp/x; #'],
    'proxy-ssl-protocols': ['TLSv1.4', 'tlsv1.2', 'TLSv1.2;', 'TLSv1.2,TLSv1.3', 'SSLv3 x'],
  };
  for (const [name, values] of Object.entries(invalid)) {
    for (const text of values) assertRefusedWith({ ...SECRET, [name]: text }, [name]);
  }
});

test('proxy-ssl-name: a host name, or host name characters with the request and server name variables', () => {
  for (const name of [
    'backend.internal',
    'a',
    'svc.ns.svc.cluster.local',
    '$host',
    '${host}.internal',
    'x-$server_name',
    '$best_http_host',
    '$ssl_server_name',
  ]) {
    assert.deepEqual(parseProxySslName(name), { ok: true, value: name }, name);
  }
});

test('proxy-ssl-name refuses other variables, malformed references, nginx syntax and hostile text', () => {
  for (const name of [
    '$hostx',
    '$host_',
    '$remote_addr',
    '$http_authorization',
    '${host',
    '$',
    '$1',
    '${}',
    '-a.example',
    'a..example',
    'a_b.example',
    'a b',
    'a;b',
    'a"b',
    '"; } ssl_engine /tmp/evil.so; #',
    'a\nb',
    '${host}}',
    '*.example.com',
    '~^a$',
    `${'a'.repeat(64)}.example`,
    `$host${'.a'.repeat(130)}`,
  ]) {
    assert.equal(parseProxySslName(name).ok, false, name);
  }
  assertRefusedWith({ ...SECRET, 'proxy-ssl-name': '$remote_addr' }, ['proxy-ssl-name', '"$remote_addr" is not one of them']);
});
