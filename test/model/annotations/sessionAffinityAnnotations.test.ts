import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

const DEFAULT_COOKIE = {
  name: 'INGRESSCOOKIE',
  path: undefined,
  domain: undefined,
  maxAge: undefined,
  expires: undefined,
  secure: false,
  sameSite: undefined,
  conditionalSameSiteNone: false,
  changeOnFailure: false,
  partitioned: false,
};

test('no affinity by default', () => {
  assert.equal(accepted({}).value.balancing.affinity, undefined);
});

test('affinity: cookie, with ingress-nginx defaults (balanced, INGRESSCOOKIE, path of the location)', () => {
  for (const text of ['cookie', 'Cookie', 'COOKIE']) {
    assert.deepEqual(accepted({ affinity: text }).value.balancing.affinity, { mode: 'balanced', cookie: DEFAULT_COOKIE });
  }
});

test('every session-cookie setting', () => {
  const { value, warnings } = accepted({
    affinity: 'cookie',
    'affinity-mode': 'Persistent',
    'session-cookie-name': 'route_v2',
    'session-cookie-path': '/app',
    'session-cookie-domain': '.example.com',
    'session-cookie-max-age': '31536000',
    'session-cookie-expires': '172800',
    'session-cookie-secure': 'true',
    'session-cookie-samesite': 'none',
    'session-cookie-conditional-samesite-none': 'true',
    'session-cookie-change-on-failure': 'true',
    'session-cookie-partitioned': 'true',
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(value.balancing.affinity, {
    mode: 'persistent',
    cookie: {
      name: 'route_v2',
      path: '/app',
      domain: '.example.com',
      maxAge: 31536000,
      expires: 172800,
      secure: true,
      sameSite: 'None',
      conditionalSameSiteNone: true,
      changeOnFailure: true,
      partitioned: true,
    },
  });
});

test('affinity settings refuse values that could break or extend the Set-Cookie header', () => {
  const invalid: Record<string, string[]> = {
    affinity: ['ip', 'cookie,header', 'sticky'],
    'affinity-mode': ['sticky', 'balanced;'],
    'session-cookie-name': ['a;b', 'a=b', 'a b', 'a,b', 'a"b', 'route/1', 'a:b'],
    'session-cookie-path': ['app', '/a;b', '/a b', '/a?b=1', '/a"b'],
    'session-cookie-domain': ['exa mple.com', '-x.example.com', 'a..b', 'example.com;secure', 'example.com.', '*.example.com'],
    'session-cookie-max-age': ['-1', '1.5', '1d', '2147483648'],
    'session-cookie-expires': ['-1', 'tomorrow'],
    'session-cookie-samesite': ['none;', 'Secure', 'no'],
    'session-cookie-secure': ['yes'],
    'session-cookie-conditional-samesite-none': ['on'],
    'session-cookie-change-on-failure': ['1x'],
    'session-cookie-partitioned': ['yes', 'Partitioned', 'true; Domain=evil.example'],
  };
  for (const [name, values] of Object.entries(invalid)) {
    for (const text of values) {
      assertRefusedWith({ affinity: 'cookie', [name]: text }, [`${PREFIX}/${name}`, `invalid value ${JSON.stringify(text)}`]);
    }
  }
});

test('affinity settings without affinity: cookie are ignored with a warning', () => {
  const { value, warnings } = accepted({ 'affinity-mode': 'persistent', 'session-cookie-name': 'x', 'session-cookie-secure': 'true' });
  assert.equal(value.balancing.affinity, undefined);
  assert.deepEqual(warnings, [
    `annotation ${PREFIX}/affinity-mode: ignored: it has no effect without affinity: "cookie"`,
    `annotation ${PREFIX}/session-cookie-name: ignored: it has no effect without affinity: "cookie"`,
    `annotation ${PREFIX}/session-cookie-secure: ignored: it has no effect without affinity: "cookie"`,
  ]);
});

test('session-cookie-conditional-samesite-none only modifies SameSite=None', () => {
  const { warnings } = accepted({
    affinity: 'cookie',
    'session-cookie-samesite': 'Lax',
    'session-cookie-conditional-samesite-none': 'true',
  });
  assert.deepEqual(warnings, [
    `annotation ${PREFIX}/session-cookie-conditional-samesite-none: ignored: it has no effect unless session-cookie-samesite is "None"`,
  ]);
});

test('risk levels as ingress-nginx: the mode and the cookie name, path, domain and lifetimes are Medium', () => {
  const lowRisk = { annotationsRiskLevel: 'Low' as const };
  for (const [name, text] of [
    ['affinity-mode', 'persistent'],
    ['session-cookie-name', 'x'],
    ['session-cookie-path', '/'],
    ['session-cookie-domain', 'example.com'],
    ['session-cookie-max-age', '60'],
    ['session-cookie-expires', '60'],
  ] as const) {
    assertRefusedWith({ affinity: 'cookie', [name]: text }, [`${PREFIX}/${name}`, 'risk level Medium'], lowRisk);
  }
  const { value } = accepted(
    {
      affinity: 'cookie',
      'session-cookie-secure': 'true',
      'session-cookie-samesite': 'None',
      'session-cookie-conditional-samesite-none': 'true',
      'session-cookie-change-on-failure': 'true',
      'session-cookie-partitioned': 'true',
    },
    lowRisk,
  );
  assert.equal(value.balancing.affinity?.cookie.secure, true);
  assert.equal(value.balancing.affinity?.cookie.partitioned, true);
});

test('session-cookie-partitioned: false by default, ignored with a warning without affinity', () => {
  assert.equal(accepted({ affinity: 'cookie', 'session-cookie-partitioned': 'false' }).value.balancing.affinity?.cookie.partitioned, false);
  assert.deepEqual(accepted({ 'session-cookie-partitioned': 'true' }).warnings, [
    `annotation ${PREFIX}/session-cookie-partitioned: ignored: it has no effect without affinity: "cookie"`,
  ]);
});
