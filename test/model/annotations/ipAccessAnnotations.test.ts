import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

test('no source ranges by default', () => {
  assert.deepEqual(accepted({}).value.location.ipAccess, { allow: [], deny: [] });
});

test('source ranges take IPv4/IPv6 addresses and CIDRs, sorted and without duplicates', () => {
  const { ipAccess } = accepted({
    'allowlist-source-range': '10.0.0.0/8, 192.168.1.1,2001:db8::/32, ::1, 10.0.0.0/8',
    'denylist-source-range': '0.0.0.0/0',
  }).value.location;
  assert.deepEqual(ipAccess, { allow: ['10.0.0.0/8', '192.168.1.1', '2001:db8::/32', '::1'], deny: ['0.0.0.0/0'] });
});

test('source ranges refuse anything else, naming the bad entry', () => {
  for (const [text, bad] of [
    ['10.0.0.0/33', '10.0.0.0/33'],
    ['2001:db8::/129', '2001:db8::/129'],
    ['10.0.0.0/08', '10.0.0.0/08'],
    ['10.0.0', '10.0.0'],
    ['010.0.0.1', '010.0.0.1'],
    ['10.0.0.0/8,', ''],
    ['10.0.0.0/8 10.1.0.0/16', '10.0.0.0/8 10.1.0.0/16'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['example.com', 'example.com'],
    ['10.0.0.0/8;allow all', '10.0.0.0/8;allow all'],
    ['all', 'all'],
  ] as const) {
    for (const name of ['allowlist-source-range', 'denylist-source-range']) {
      assertRefusedWith({ [name]: text }, [name, 'IPv4/IPv6 addresses or CIDRs', `${JSON.stringify(bad)} is not one`]);
    }
  }
});

test('whitelist-source-range is an alias of allowlist-source-range', () => {
  assert.deepEqual(accepted({ 'whitelist-source-range': '10.0.0.0/8' }).value.location.ipAccess.allow, ['10.0.0.0/8']);
  assertRefusedWith({ 'whitelist-source-range': 'nope' }, [`${PREFIX}/whitelist-source-range`, 'IPv4/IPv6']);
});

test('the canonical name wins over the alias, with a warning', () => {
  const { value, warnings } = accepted({ 'allowlist-source-range': '10.0.0.0/8', 'whitelist-source-range': '0.0.0.0/0' });
  assert.deepEqual(value.location.ipAccess.allow, ['10.0.0.0/8']);
  assert.deepEqual(warnings, [
    `annotation ${PREFIX}/whitelist-source-range: ignored, because ${PREFIX}/allowlist-source-range is also set`,
  ]);
});

test('an empty canonical value lets the alias apply, as in ingress-nginx', () => {
  const { value } = accepted({ 'allowlist-source-range': '', 'whitelist-source-range': '10.0.0.0/8' });
  assert.deepEqual(value.location.ipAccess.allow, ['10.0.0.0/8']);
});

test('source ranges are Medium risk, and so is the alias', () => {
  for (const name of ['allowlist-source-range', 'whitelist-source-range', 'denylist-source-range']) {
    assertRefusedWith({ [name]: '10.0.0.0/8' }, [name, 'risk level Medium'], { annotationsRiskLevel: 'Low' });
  }
});
