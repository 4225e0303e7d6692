import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX, refused } from './annotationTestSupport.js';

const DEFAULT_POLICY = {
  weight: 0,
  weightTotal: 100,
  header: undefined,
  headerValue: undefined,
  headerPattern: undefined,
  cookie: undefined,
  affinityBehavior: 'sticky',
};

test('an Ingress is not a canary unless canary is "true"', () => {
  assert.equal(accepted({}).value.canary, undefined);
  assert.equal(accepted({ canary: 'false' }).value.canary, undefined);
  assert.deepEqual(accepted({ canary: 'true' }).value.canary, DEFAULT_POLICY);
});

test('every canary setting', () => {
  const { value, warnings } = accepted({
    canary: 'true',
    'canary-weight': '5',
    'canary-weight-total': '1000',
    'canary-by-header': 'X-Canary',
    'canary-by-header-pattern': '^(eu|us)-[0-9]+$',
    'canary-by-cookie': 'canary_user',
    'affinity-canary-behavior': 'legacy',
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(value.canary, {
    weight: 5,
    weightTotal: 1000,
    header: 'X-Canary',
    headerValue: undefined,
    headerPattern: '^(eu|us)-[0-9]+$',
    cookie: 'canary_user',
    affinityBehavior: 'legacy',
  });
  const byValue = accepted({ canary: 'true', 'canary-by-header': 'X-Region', 'canary-by-header-value': 'eu west/2' }).value.canary;
  assert.equal(byValue?.headerValue, 'eu west/2');
});

test('canary-weight may reach canary-weight-total, not pass it', () => {
  assert.equal(accepted({ canary: 'true', 'canary-weight': '100' }).value.canary?.weight, 100);
  assert.equal(accepted({ canary: 'true', 'canary-weight': '3', 'canary-weight-total': '3' }).value.canary?.weight, 3);
  assertRefusedWith({ canary: 'true', 'canary-weight': '101' }, [`${PREFIX}/canary-weight`, '101 is above canary-weight-total (100)']);
  assertRefusedWith({ canary: 'true', 'canary-weight': '11', 'canary-weight-total': '10' }, ['11 is above canary-weight-total (10)']);
});

test('canary values are validated', () => {
  const invalid: Record<string, string[]> = {
    canary: ['yes', 'enabled'],
    'canary-weight': ['-1', '1.5', '50%', '2147483648'],
    'canary-weight-total': ['0', '-100', 'all'],
    'canary-by-header': ['X Canary', 'X:Canary', 'X-Canary;', 'X.Canary'],
    'canary-by-header-value': ['a;b', 'a"b', "a'b", `${'a'.repeat(257)}`],
    'canary-by-header-pattern': ['(a+)+', '(?=x)', '\\1', '[', 'a{2,1}', 'é'],
    'canary-by-cookie': ['a;b', 'a=b', 'a b'],
    'affinity-canary-behavior': ['Sticky', 'always', 'sticky legacy'],
  };
  for (const [name, values] of Object.entries(invalid)) {
    for (const text of values) {
      assertRefusedWith({ canary: 'true', 'canary-by-header': 'X', [name]: text }, [`${PREFIX}/${name}`, 'invalid value']);
    }
  }
});

test('settings that route to a canary refuse an Ingress that is not one', () => {
  for (const [name, text] of [
    ['canary-weight', '10'],
    ['canary-by-header', 'X-Canary'],
    ['canary-by-header-value', 'yes'],
    ['canary-by-header-pattern', 'y.*'],
    ['canary-by-cookie', 'beta'],
  ] as const) {
    for (const canary of [{}, { canary: 'false' }] as Record<string, string>[]) {
      const errors = refused({ ...canary, [name]: text });
      assert.deepEqual(errors, [
        `annotation ${PREFIX}/${name}: it routes traffic to a canary, but this Ingress does not set canary: "true"`,
      ]);
    }
  }
});

test('a zero weight or a weight total without canary: "true" routes nothing: ignored with a warning', () => {
  const { value, warnings } = accepted({ canary: 'false', 'canary-weight': '0', 'canary-weight-total': '10' });
  assert.equal(value.canary, undefined);
  assert.deepEqual(warnings, [
    `annotation ${PREFIX}/canary-weight: ignored: it has no effect without canary: "true"`,
    `annotation ${PREFIX}/canary-weight-total: ignored: it has no effect without canary: "true"`,
  ]);
  const behaviour = accepted({ 'affinity-canary-behavior': 'legacy' }).warnings;
  assert.deepEqual(behaviour, [`annotation ${PREFIX}/affinity-canary-behavior: ignored: it has no effect without canary: "true"`]);
});

test('a header value or pattern needs canary-by-header, and a value makes the pattern moot', () => {
  const withoutHeader = accepted({ canary: 'true', 'canary-by-header-value': 'on', 'canary-by-header-pattern': 'o.*' });
  assert.deepEqual(withoutHeader.value.canary, DEFAULT_POLICY);
  assert.deepEqual(withoutHeader.warnings, [
    `annotation ${PREFIX}/canary-by-header-value: ignored: it has no effect without canary-by-header`,
    `annotation ${PREFIX}/canary-by-header-pattern: ignored: it has no effect without canary-by-header`,
  ]);
  const both = accepted({ canary: 'true', 'canary-by-header': 'X', 'canary-by-header-value': 'on', 'canary-by-header-pattern': 'o.*' });
  assert.deepEqual(both.value.canary, { ...DEFAULT_POLICY, header: 'X', headerValue: 'on' });
  assert.deepEqual(both.warnings, [`annotation ${PREFIX}/canary-by-header-pattern: ignored: canary-by-header-value takes precedence`]);
});

test('combinations are judged only once every value is valid', () => {
  assert.deepEqual(refused({ canary: 'maybe', 'canary-weight': '10' }), [
    `annotation ${PREFIX}/canary: invalid value "maybe"; expected "true" or "false"`,
  ]);
});

test('risk levels as ingress-nginx: the header and cookie settings are Medium, the rest Low', () => {
  const lowRisk = { annotationsRiskLevel: 'Low' as const };
  for (const name of ['canary-by-header', 'canary-by-header-value', 'canary-by-header-pattern', 'canary-by-cookie']) {
    assertRefusedWith({ canary: 'true', [name]: 'x' }, [`${PREFIX}/${name}`, 'risk level Medium'], lowRisk);
  }
  const { value } = accepted({ canary: 'true', 'canary-weight': '20', 'canary-weight-total': '200' }, lowRisk);
  assert.deepEqual(value.canary, { ...DEFAULT_POLICY, weight: 20, weightTotal: 200 });
});
