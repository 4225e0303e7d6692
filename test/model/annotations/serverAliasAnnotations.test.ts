import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith } from './annotationTestSupport.js';

test('server-alias: a comma list, trimmed, lower-cased, deduplicated and sorted, as ingress-nginx', () => {
  const { value } = accepted({ 'server-alias': ' b.example , A.example,b.example,,*.wild.example ' });
  assert.deepEqual(value.location.serverAlias, ['*.wild.example', 'a.example', 'b.example']);
});

test('an empty list is no alias', () => {
  assert.equal(accepted({ 'server-alias': ' , ' }).value.location.serverAlias, undefined);
  assert.equal(accepted({}).value.location.serverAlias, undefined);
});

test('names that are not DNS names or one-label wildcards are refused: regexes and nginx syntax alike', () => {
  for (const alias of [
    '~^www\\d+\\.example\\.com$',
    'a.example;',
    'a.example }',
    'a"b',
    '$host',
    'a b',
    '*',
    '*.*.example',
    'a.*',
    '.example',
    'a..example',
    '-a.example',
    `${'a'.repeat(64)}.example`,
  ]) {
    assertRefusedWith({ 'server-alias': `ok.example,${alias}` }, ['server-alias', 'a DNS name or a wildcard']);
  }
});

test('server-alias is High risk', () => {
  assertRefusedWith({ 'server-alias': 'a.example' }, ['server-alias', 'risk level High'], { annotationsRiskLevel: 'Medium' });
});

test('from-to-www-redirect: "true" turns it on, "false" is the same as unset, anything else is refused', () => {
  assert.equal(accepted({ 'from-to-www-redirect': 'true' }).value.location.fromToWwwRedirect, true);
  assert.equal('fromToWwwRedirect' in accepted({ 'from-to-www-redirect': 'false' }).value.location, false);
  assertRefusedWith({ 'from-to-www-redirect': 'yes' }, ['from-to-www-redirect', '"true" or "false"']);
});
