import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';
import type { RateLimits } from '../../../src/model/types.js';

const limitsOf = (annotations: Record<string, string>, settings = {}): RateLimits | undefined =>
  accepted(annotations, settings).value.location.limits;

const NO_LIMIT: RateLimits = {
  connections: 0,
  requestsPerSecond: 0,
  requestsPerMinute: 0,
  burstMultiplier: 5,
  allowlist: [],
  rateKilobytes: 0,
  rateAfterKilobytes: 0,
};

test('no limits by default, and none when every limit is 0 (as ingress-nginx)', () => {
  assert.equal(limitsOf({}), undefined);
  assert.equal('limits' in accepted({}).value.location, false, 'locations without limits compare equal to those that never had them');
  assert.equal(limitsOf({ 'limit-rps': '0', 'limit-rpm': '0', 'limit-connections': '0' }), undefined);
});

test('the request and connection limits, with the default burst multiplier 5', () => {
  assert.deepEqual(limitsOf({ 'limit-rps': '10', 'limit-rpm': '600', 'limit-connections': '2' }), {
    ...NO_LIMIT,
    connections: 2,
    requestsPerSecond: 10,
    requestsPerMinute: 600,
  });
});

test('limit-burst-multiplier and limit-allowlist (sorted, without duplicates) modify a limit', () => {
  assert.deepEqual(
    limitsOf({ 'limit-rps': '1', 'limit-burst-multiplier': '0', 'limit-allowlist': '10.0.0.0/8, ::1,10.0.0.0/8, 192.168.0.1' }),
    { ...NO_LIMIT, requestsPerSecond: 1, burstMultiplier: 0, allowlist: ['10.0.0.0/8', '192.168.0.1', '::1'] },
  );
});

test('limit-whitelist is an alias of limit-allowlist; the canonical name wins', () => {
  assert.deepEqual(limitsOf({ 'limit-rps': '1', 'limit-whitelist': '10.0.0.0/8' })?.allowlist, ['10.0.0.0/8']);
  const { value, warnings } = accepted({ 'limit-rps': '1', 'limit-allowlist': '10.0.0.0/8', 'limit-whitelist': '0.0.0.0/0' });
  assert.deepEqual(value.location.limits?.allowlist, ['10.0.0.0/8']);
  assert.deepEqual(warnings, [`annotation ${PREFIX}/limit-whitelist: ignored, because ${PREFIX}/limit-allowlist is also set`]);
});

test('without a connection or request limit, the multiplier and the allowlist change nothing', () => {
  assert.equal(limitsOf({ 'limit-burst-multiplier': '3', 'limit-allowlist': '10.0.0.0/8' }), undefined);
  assert.deepEqual(limitsOf({ 'limit-rate': '100', 'limit-burst-multiplier': '3', 'limit-allowlist': '10.0.0.0/8' }), {
    ...NO_LIMIT,
    rateKilobytes: 100,
  });
});

test('limit-rate and limit-rate-after in kilobytes, defaulting to the ConfigMap; 0 overrides it', () => {
  assert.deepEqual(limitsOf({ 'limit-rate': '100', 'limit-rate-after': '1024' }), {
    ...NO_LIMIT,
    rateKilobytes: 100,
    rateAfterKilobytes: 1024,
  });
  assert.deepEqual(limitsOf({}, { limitRate: 50, limitRateAfter: 10 }), { ...NO_LIMIT, rateKilobytes: 50, rateAfterKilobytes: 10 });
  assert.equal(limitsOf({ 'limit-rate': '0', 'limit-rate-after': '0' }, { limitRate: 50, limitRateAfter: 10 }), undefined);
});

test('the bounds: what nginx accepts and computes exactly', () => {
  const largest = limitsOf({
    'limit-connections': '65535',
    'limit-rps': '1000000',
    'limit-rpm': '60000000',
    'limit-burst-multiplier': '1000',
    'limit-rate': '2147483647',
    'limit-rate-after': '2147483647',
  });
  assert.deepEqual(largest, {
    ...NO_LIMIT,
    connections: 65535,
    requestsPerSecond: 1_000_000,
    requestsPerMinute: 60_000_000,
    burstMultiplier: 1000,
    rateKilobytes: 2147483647,
    rateAfterKilobytes: 2147483647,
  });
  for (const [name, tooLarge, range] of [
    ['limit-connections', '65536', 'from 0 to 65535'],
    ['limit-rps', '1000001', 'from 0 to 1000000'],
    ['limit-rpm', '60000001', 'from 0 to 60000000'],
    ['limit-burst-multiplier', '1001', 'from 0 to 1000'],
    ['limit-rate', '2147483648', 'from 0 to 2147483647'],
    ['limit-rate-after', '2147483648', 'from 0 to 2147483647'],
  ] as const) {
    assertRefusedWith({ [name]: tooLarge }, [`${PREFIX}/${name}`, range]);
  }
});

test('invalid and hostile numbers are refused', () => {
  for (const name of ['limit-connections', 'limit-rps', 'limit-rpm', 'limit-burst-multiplier', 'limit-rate', 'limit-rate-after']) {
    for (const value of ['-1', '1.5', '1e3', '0x10', '10r/s', '5 nodelay', '1; limit_req_zone $x', '1k', 'ten', '１']) {
      assertRefusedWith({ [name]: value }, [`${PREFIX}/${name}`, 'an integer']);
    }
  }
});

test('invalid and hostile allowlists are refused, naming the bad entry', () => {
  for (const [value, bad] of [
    ['10.0.0.0/33', '10.0.0.0/33'],
    ['10.0.0.0/8,', ''],
    ['10.0.0.0/8 1; default ""', '10.0.0.0/8 1; default ""'],
    ['all', 'all'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
  ] as const) {
    for (const name of ['limit-allowlist', 'limit-whitelist']) {
      assertRefusedWith({ 'limit-rps': '1', [name]: value }, [`${PREFIX}/${name}`, `${JSON.stringify(bad)} is not one`]);
    }
  }
});

test('every limit annotation is Low risk, as in ingress-nginx, so the lowest risk level admits them', () => {
  const all = {
    'limit-connections': '1',
    'limit-rps': '1',
    'limit-rpm': '1',
    'limit-burst-multiplier': '1',
    'limit-allowlist': '10.0.0.0/8',
    'limit-rate': '1',
    'limit-rate-after': '1',
  };
  assert.ok(limitsOf(all, { annotationsRiskLevel: 'Low' }));
  assert.ok(limitsOf({ 'limit-rps': '1', 'limit-whitelist': '10.0.0.0/8' }, { annotationsRiskLevel: 'Low' }));
});
