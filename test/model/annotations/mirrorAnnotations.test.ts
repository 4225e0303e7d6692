import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatMirrorTarget, parseMirrorHost, parseMirrorTarget } from '../../../src/model/annotations/mirrorAnnotations.js';
import { accepted, assertRefusedWith, refused } from './annotationTestSupport.js';

test('mirror-target alone: the copy carries the body, with the Host of the target', () => {
  const { value, warnings } = accepted({ 'mirror-target': 'http://10.0.0.9:8080/mirror' });
  assert.deepEqual(warnings, []);
  assert.deepEqual(value.location.mirror, {
    target: { scheme: 'http', host: '10.0.0.9', port: 8080, path: '/mirror' },
    host: '10.0.0.9',
    requestBody: true,
  });
});

test('mirror-host and mirror-request-body: off', () => {
  const { value } = accepted({
    'mirror-target': 'https://[2001:db8::1]$request_uri',
    'mirror-host': 'Test.Env.COM',
    'mirror-request-body': 'off',
  });
  assert.deepEqual(value.location.mirror, {
    target: { scheme: 'https', host: '[2001:db8::1]', port: 443, path: '$request_uri' },
    host: 'test.env.com',
    requestBody: false,
  });
});

test('without mirror-target, mirror-host and mirror-request-body have no effect (a warning each), as in ingress-nginx', () => {
  const { value, warnings } = accepted({ 'mirror-host': 'a.example', 'mirror-request-body': 'on' });
  assert.equal(value.location.mirror, undefined);
  assert.equal(warnings.length, 2);
  assert.ok(warnings.every((warning) => warning.includes('no effect without mirror-target')));
});

test('a DNS name target is ignored with a warning: nginx would need a run-time resolver', () => {
  const { value, warnings } = accepted({ 'mirror-target': 'https://test.env.com$request_uri' });
  assert.equal(value.location.mirror, undefined);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? '', /mirror-target.*no resolver/);
});

test('valid targets are re-serialised from their parts', () => {
  const cases: Array<[string, string]> = [
    ['http://10.0.0.9', 'http://10.0.0.9'],
    ['HTTP://10.0.0.9:80/', 'http://10.0.0.9/'],
    ['https://10.0.0.9:443$request_uri', 'https://10.0.0.9$request_uri'],
    ['http://10.0.0.9:81/copy$request_uri', 'http://10.0.0.9:81/copy$request_uri'],
    ['http://10.0.0.9/a/b?x=1&y=2,3', 'http://10.0.0.9/a/b?x=1&y=2,3'],
    ['http://[::ffff:10.0.0.9]:8080/m', 'http://[::ffff:10.0.0.9]:8080/m'],
    ['http://mirror.example.com/m', 'http://mirror.example.com/m'],
  ];
  for (const [input, written] of cases) {
    const parsed = parseMirrorTarget(input);
    assert.ok(parsed.ok, input);
    assert.equal(formatMirrorTarget(parsed.value), written);
  }
});

test('CVE-2025-1098 style values are refused: newlines, ";", "}", quotes, spaces, other variables', () => {
  const hostile = [
    'http://10.0.0.9/;\nssl_engine /tmp/x.so;',
    'http://10.0.0.9/m; } location /x { return 200',
    'http://10.0.0.9/m}',
    'http://10.0.0.9/m"',
    "http://10.0.0.9/m'",
    'http://10.0.0.9/m x',
    'http://10.0.0.9/m#',
    'http://10.0.0.9/m\\',
    'http://10.0.0.9$host',
    'http://10.0.0.9/$http_authorization',
    'http://10.0.0.9/${request_uri}',
    'http://10.0.0.9/$request_urix',
    'http://10.0.0.9/$request_uri_',
    'http://10.0.0.9/$',
    'http://$host/m',
    'http://10.0.0.9:0/m',
    'http://10.0.0.9:65536/m',
    'http://10.0.0.9:80:80/m',
    'http://user@10.0.0.9/m',
    'http://10.0.0.9:8o/m',
    'ftp://10.0.0.9/m',
    'unix:/tmp/socket',
    '//10.0.0.9/m',
    'http://',
    'http://-bad-.example/m',
    'http://[zz::1]/m',
    `http://10.0.0.9/${'a'.repeat(3000)}`,
  ];
  for (const value of hostile) assert.equal(parseMirrorTarget(value).ok, false, JSON.stringify(value));
  // Through the whole parser: the Ingress is refused (control characters by the common check).
  assertRefusedWith({ 'mirror-target': 'http://10.0.0.9/m;}' }, ['mirror-target', 'invalid value']);
  assertRefusedWith({ 'mirror-target': 'http://10.0.0.9/m\nx' }, ['mirror-target']);
});

test('mirror-host: a name or address with an optional port, nothing else', () => {
  for (const value of ['a.example', 'a.example:8080', '10.0.0.9', '[2001:db8::1]:81']) assert.ok(parseMirrorHost(value).ok, value);
  for (const value of ['a.example;', 'a example', '$host', 'a.example:0', 'a"b', '{a}', '*.example', 'a.example/x', '']) {
    assert.equal(parseMirrorHost(value).ok, false, value);
  }
  assertRefusedWith({ 'mirror-target': 'http://10.0.0.9', 'mirror-host': 'x;y' }, ['mirror-host', 'invalid value']);
});

test('mirror-request-body: on or off only', () => {
  assertRefusedWith({ 'mirror-target': 'http://10.0.0.9', 'mirror-request-body': 'yes' }, ['mirror-request-body', 'one of on, off']);
});

test('mirror-target and mirror-host are High risk, mirror-request-body Low', () => {
  assertRefusedWith({ 'mirror-target': 'http://10.0.0.9' }, ['mirror-target', 'risk level High'], { annotationsRiskLevel: 'Medium' });
  assert.ok(
    refused({ 'mirror-target': 'http://10.0.0.9', 'mirror-host': 'a.example' }, { annotationsRiskLevel: 'Medium' }).some((error) =>
      error.includes('mirror-host: risk level High'),
    ),
  );
  accepted({ 'mirror-request-body': 'off' }, { annotationsRiskLevel: 'Low' });
});
