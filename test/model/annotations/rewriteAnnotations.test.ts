import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

test('rewrite-target accepts URL paths with captures', () => {
  for (const target of ['/', '/$1', '/api/$2', '$1', '/v1/models:predict', '/a-b_c.d~e', '/$10']) {
    assert.equal(accepted({ 'rewrite-target': target }).value.location.rewrite.target, target, target);
  }
});

test('rewrite-target ${N} (ingress-nginx documents it; nginx reads a variable named "N") becomes $N, exactly', () => {
  const cases = [
    ['/${1}/x', '/$1/x'],
    ['/${2}', '/$2'],
    ['${1}', '$1'],
    ['/${1}0', '/$10'],
    ['/${1}${2}', '/$1$2'],
  ] as const;
  for (const [target, rendered] of cases) {
    assert.equal(accepted({ 'rewrite-target': target }).value.location.rewrite.target, rendered, target);
  }
});

test('rewrite-target refuses anything that is not an anchored path', () => {
  for (const target of [
    'http://evil.example/',
    '$scheme://evil.example',
    'relative/path',
    '/$host',
    '/$0',
    '/${name}',
    '/${10}',
    '/${1',
    '/$',
    '/a;return 200 x',
    '/a b',
    '/a"b',
    '/a{b}',
    '/path?query=1',
    '/%2e%2e',
  ]) {
    assertRefusedWith({ 'rewrite-target': target }, [`${PREFIX}/rewrite-target`, 'invalid value', 'expected a URL path']);
  }
});

test('an unset rewrite-target stays unset; use-regex defaults to false', () => {
  const { rewrite } = accepted({}).value.location;
  assert.equal('target' in rewrite, false);
  assert.equal(rewrite.useRegex, false);
  assert.equal(accepted({ 'use-regex': 'true' }).value.location.rewrite.useRegex, true);
});

test('booleans follow Go strconv.ParseBool, as ingress-nginx', () => {
  const cases = [
    ['true', true],
    ['True', true],
    ['1', true],
    ['false', false],
    ['FALSE', false],
    ['0', false],
  ] as const;
  for (const [text, value] of cases) {
    assert.equal(accepted({ 'use-regex': text }).value.location.rewrite.useRegex, value, text);
  }
  for (const text of ['yes', 'on', 'tru', '2']) {
    assertRefusedWith({ 'use-regex': text }, ['use-regex', 'expected "true" or "false"']);
  }
});

test('ssl-redirect and force-ssl-redirect default to the ConfigMap values', () => {
  assert.deepEqual(accepted({}).value.location.rewrite, { useRegex: false, sslRedirect: true, forceSslRedirect: false });
  assert.deepEqual(accepted({}, { sslRedirect: false, forceSslRedirect: true }).value.location.rewrite, {
    useRegex: false,
    sslRedirect: false,
    forceSslRedirect: true,
  });
  assert.deepEqual(accepted({ 'ssl-redirect': 'false', 'force-ssl-redirect': 'true' }).value.location.rewrite, {
    useRegex: false,
    sslRedirect: false,
    forceSslRedirect: true,
  });
});

test('force-ssl-redirect is Medium risk, ssl-redirect Low', () => {
  const lowRisk = { annotationsRiskLevel: 'Low' as const };
  assertRefusedWith({ 'force-ssl-redirect': 'true' }, ['force-ssl-redirect', 'risk level Medium'], lowRisk);
  const atMedium = accepted({ 'force-ssl-redirect': 'true' }, { annotationsRiskLevel: 'Medium' });
  assert.equal(atMedium.value.location.rewrite.forceSslRedirect, true);
  assert.equal(accepted({ 'ssl-redirect': 'true' }, { annotationsRiskLevel: 'Low' }).value.location.rewrite.sslRedirect, true);
});
