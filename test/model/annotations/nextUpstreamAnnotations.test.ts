import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, parseNamed } from './annotationTestSupport.js';
import { nextUpstreamSettings } from '../../../src/model/annotations/nextUpstreamAnnotations.js';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { HOSTILE_STRINGS } from '../../dataplane/nginx/render/hostileValues.js';

const retries = (annotations: Record<string, string>, settings = {}) => accepted(annotations, settings).value.location.nextUpstream;

test('no retry annotation: no part; the ConfigMap gives ingress-nginx defaults', () => {
  assert.equal(retries({}), undefined);
  assert.deepEqual(nextUpstreamSettings(DEFAULT_SETTINGS), { conditions: ['error', 'timeout'], timeout: 0, tries: 3 });
});

test('each annotation over the ConfigMap values', () => {
  assert.deepEqual(retries({ 'proxy-next-upstream': 'error timeout http_502 http_503' }), {
    conditions: ['error', 'timeout', 'http_502', 'http_503'],
    timeout: 0,
    tries: 3,
  });
  const settings = { proxyNextUpstream: ['http_504' as const], proxyNextUpstreamTries: 5, proxyNextUpstreamTimeout: 9 };
  assert.deepEqual(retries({ 'proxy-next-upstream-tries': '1' }, settings), { conditions: ['http_504'], timeout: 9, tries: 1 });
  assert.deepEqual(retries({ 'proxy-next-upstream-timeout': '30', 'proxy-next-upstream-tries': '0' }), {
    conditions: ['error', 'timeout'],
    timeout: 30,
    tries: 0,
  });
});

test('off anywhere turns retries off; duplicates go', () => {
  assert.deepEqual(retries({ 'proxy-next-upstream': 'off' })?.conditions, ['off']);
  assert.deepEqual(retries({ 'proxy-next-upstream': 'error off' })?.conditions, ['off']);
  assert.deepEqual(retries({ 'proxy-next-upstream': 'off' }, { retryNonIdempotent: true })?.conditions, ['off']);
  assert.deepEqual(retries({ 'proxy-next-upstream': 'error  error timeout' })?.conditions, ['error', 'timeout']);
});

test('non_idempotent (or the ConfigMap retry-non-idempotent) goes last, as ingress-nginx', () => {
  assert.deepEqual(retries({ 'proxy-next-upstream': 'non_idempotent error' })?.conditions, ['error', 'non_idempotent']);
  assert.deepEqual(retries({ 'proxy-next-upstream': 'error http_429' }, { retryNonIdempotent: true })?.conditions, [
    'error',
    'http_429',
    'non_idempotent',
  ]);
  assert.deepEqual(nextUpstreamSettings({ ...DEFAULT_SETTINGS, retryNonIdempotent: true }).conditions, [
    'error',
    'timeout',
    'non_idempotent',
  ]);
});

test("proxy-next-upstream takes only ingress-nginx's words, space-separated", () => {
  for (const text of ['error,timeout', 'errortimeout', 'http_501', 'updating', 'Error', 'error;', 'on']) {
    assertRefusedWith({ 'proxy-next-upstream': text }, ['proxy-next-upstream', 'conditions']);
  }
  for (const hostile of [...HOSTILE_STRINGS, 'error; include /etc/passwd', 'error }']) {
    if (hostile.trim() === '') continue;
    assert.equal(parseNamed({ 'proxy-next-upstream': hostile }).ok, false, JSON.stringify(hostile));
  }
});

test('timeout: whole seconds a timer holds; tries: a count', () => {
  assert.equal(retries({ 'proxy-next-upstream-timeout': '2147483' })?.timeout, 2147483);
  for (const text of ['-1', '1s', '1.5', '2147484', '0x10']) assertRefusedWith({ 'proxy-next-upstream-timeout': text }, ['an integer']);
  assert.equal(retries({ 'proxy-next-upstream-tries': '2147483647' })?.tries, 2147483647);
  for (const text of ['-1', '3.0', '2147483648', 'three']) assertRefusedWith({ 'proxy-next-upstream-tries': text }, ['an integer']);
});

test('risk levels are ingress-nginx: proxy-next-upstream Medium, the others Low', () => {
  const lowRisk = { annotationsRiskLevel: 'Low' as const };
  assertRefusedWith({ 'proxy-next-upstream': 'error' }, ['risk level Medium'], lowRisk);
  assert.equal(retries({ 'proxy-next-upstream-tries': '2' }, lowRisk)?.tries, 2);
});
