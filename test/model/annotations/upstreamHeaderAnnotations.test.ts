import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseForwardedPrefix, parseUpstreamVhost } from '../../../src/model/annotations/upstreamHeaderAnnotations.js';
import { HOSTILE_STRINGS } from '../../dataplane/nginx/render/hostileValues.js';
import { accepted, assertRefusedWith } from './annotationTestSupport.js';

test('without the annotations there is nothing to change upstream', () => {
  assert.equal(accepted({}).value.location.upstreamHeaders, undefined);
  assert.equal(accepted({ 'rewrite-target': '/' }).value.location.upstreamHeaders, undefined);
});

test('connection-proxy-header is close or keep-alive, as ingress-nginx', () => {
  for (const value of ['close', 'keep-alive']) {
    assert.deepEqual(accepted({ 'connection-proxy-header': value }).value.location.upstreamHeaders, {
      connection: value,
      host: undefined,
      forwardedPrefix: undefined,
    });
  }
  for (const value of ['upgrade', 'Close', 'keep-alive, close', 'close;', '$http_connection']) {
    assertRefusedWith({ 'connection-proxy-header': value }, ['connection-proxy-header', 'one of close, keep-alive']);
  }
});

test('upstream-vhost: a host, host:port, or the variables a Host is built from', () => {
  for (const value of [
    'upstreamvhost.bar.com',
    'backend.internal:8080',
    '[::1]:8080',
    '$host',
    '${service_name}.${namespace}.svc.cluster.local',
    '$service_name.$namespace.svc:$service_port',
    '$http_x_tenant.example',
  ]) {
    assert.equal(accepted({ 'upstream-vhost': value }).value.location.upstreamHeaders?.host, value);
  }
  for (const value of [
    'a b',
    'a;b',
    'a"b',
    "a'b",
    'a{b}',
    '$',
    '${',
    '${host',
    '$request_body',
    '$remote_user.x',
    '$hostx',
    'a/b',
    'x'.repeat(1025),
  ]) {
    assert.equal(parseUpstreamVhost(value).ok, false, value);
  }
  // Only those that are plain host words pass ('ssl_engine'): the renderer quotes them.
  for (const value of HOSTILE_STRINGS.filter((value) => !/^[A-Za-z0-9._~:-]+$/.test(value))) {
    assert.equal(parseUpstreamVhost(value).ok, false, value);
  }
  assertRefusedWith({ 'upstream-vhost': 'a;b' }, ['upstream-vhost', 'invalid value']);
});

test('x-forwarded-prefix with rewrite-target; without it, ignored with a warning, as ingress-nginx writes it beside the rewrite only', () => {
  const withRewrite = accepted({ 'x-forwarded-prefix': '/test/value', 'rewrite-target': '/foo' });
  assert.deepEqual(withRewrite.warnings, []);
  assert.equal(withRewrite.value.location.upstreamHeaders?.forwardedPrefix, '/test/value');
  assert.equal(
    accepted({ 'x-forwarded-prefix': '/app/$1', 'rewrite-target': '/$1' }).value.location.upstreamHeaders?.forwardedPrefix,
    '/app/$1',
  );
  const alone = accepted({ 'x-forwarded-prefix': '/test/value' });
  assert.equal(alone.value.location.upstreamHeaders, undefined);
  assert.equal(alone.warnings.length, 1);
  assert.match(alone.warnings[0] ?? '', /x-forwarded-prefix: no effect without rewrite-target/);
});

test('x-forwarded-prefix takes ingress-nginx characters only', () => {
  for (const value of ['/a', 'a/b', '/a-b_c.d~e:f/$2']) assert.equal(parseForwardedPrefix(value).ok, true, value);
  for (const value of ['/a;b', '/a"b', '/a{b}', '/a?b', '/a\\b', 'x'.repeat(1025)])
    assert.equal(parseForwardedPrefix(value).ok, false, value);
  for (const value of HOSTILE_STRINGS.filter((value) => !/^[/A-Za-z_ ]+$/.test(value)))
    assert.equal(parseForwardedPrefix(value).ok, false, value);
});
