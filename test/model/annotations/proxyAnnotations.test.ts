import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith } from './annotationTestSupport.js';

test('proxy values default to the ConfigMap settings', () => {
  assert.deepEqual(accepted({}).value.location.proxy, {
    bodySize: '1m',
    connectTimeout: 5,
    readTimeout: 60,
    sendTimeout: 60,
    buffering: 'off',
  });
  const settings = { proxyBodySize: '8m', proxyConnectTimeout: 1, proxyReadTimeout: 2, proxySendTimeout: 3, proxyBuffering: 'on' as const };
  const proxy = { bodySize: '8m', connectTimeout: 1, readTimeout: 2, sendTimeout: 3, buffering: 'on' };
  assert.deepEqual(accepted({}, settings).value.location.proxy, proxy);
});

test('proxy annotations override the ConfigMap settings', () => {
  const annotations = {
    'proxy-body-size': '512k',
    'proxy-connect-timeout': '10',
    'proxy-read-timeout': '3600',
    'proxy-send-timeout': '1',
    'proxy-buffering': 'on',
  };
  assert.deepEqual(accepted(annotations, { proxyBodySize: '8m' }).value.location.proxy, {
    bodySize: '512k',
    connectTimeout: 10,
    readTimeout: 3600,
    sendTimeout: 1,
    buffering: 'on',
  });
});

test('proxy-buffering is on or off, as ingress-nginx', () => {
  assert.equal(accepted({ 'proxy-buffering': 'off' }, { proxyBuffering: 'on' }).value.location.proxy.buffering, 'off');
  for (const text of ['true', 'On', 'yes', 'off;']) assertRefusedWith({ 'proxy-buffering': text }, ['proxy-buffering', 'invalid value']);
});

test('proxy-body-size takes nginx sizes', () => {
  for (const size of ['0', '1024', '1k', '8K', '1m', '100M', '1g', '2G']) {
    assert.equal(accepted({ 'proxy-body-size': size }).value.location.proxy.bodySize, size);
  }
  for (const size of ['1.5m', '1mb', '1b', '-1', 'm', '1 m', '1m;', 'off']) {
    assertRefusedWith({ 'proxy-body-size': size }, ['proxy-body-size', 'an nginx size']);
  }
});

test('proxy-body-size: at most 2^63 - 1 bytes, which nginx -t takes (9999999999g refuses the Ingress, not the configuration)', () => {
  assert.equal(accepted({ 'proxy-body-size': '8589934591g' }).value.location.proxy.bodySize, '8589934591g');
  for (const size of ['9999999999g', '8589934592g', '8796093022208m']) {
    assertRefusedWith({ 'proxy-body-size': size }, ['proxy-body-size', 'at most 8589934591g']);
  }
});

test('proxy timeouts are whole seconds, at least 1 (0 makes every request a 504)', () => {
  for (const name of ['proxy-connect-timeout', 'proxy-read-timeout', 'proxy-send-timeout']) {
    for (const text of ['0', '60s', '-1', '1.5', '+5', '0x10', '1e3', '2147484', 'sixty']) {
      assertRefusedWith({ [name]: text }, [name, 'an integer of seconds from 1 to 2147483']);
    }
    assert.ok(accepted({ [name]: '1' }).value);
  }
  assert.equal(accepted({ 'proxy-read-timeout': '2147483' }).value.location.proxy.readTimeout, 2147483);
});

test('proxy-body-size is Medium risk, the timeouts Low', () => {
  const lowRisk = { annotationsRiskLevel: 'Low' as const };
  assertRefusedWith({ 'proxy-body-size': '1m' }, ['risk level Medium', 'annotations-risk-level Low'], lowRisk);
  assert.equal(accepted({ 'proxy-read-timeout': '5' }, { annotationsRiskLevel: 'Low' }).value.location.proxy.readTimeout, 5);
});
