import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX, refused } from './annotationTestSupport.js';
import { HOSTILE_STRINGS } from '../../dataplane/nginx/render/hostileValues.js';

const redirectsOf = (annotations: Record<string, string>) => accepted(annotations).value.location.redirects;

test('no redirect annotations, or only ones at their defaults: no redirects part', () => {
  assert.equal(redirectsOf({}), undefined);
  assert.equal(
    redirectsOf({ 'relative-redirects': 'false', 'preserve-trailing-slash': 'false', 'use-port-in-redirects': 'false' }),
    undefined,
  );
});

test('permanent-redirect: 301 by default, permanent-redirect-code from 300 to 308', () => {
  assert.deepEqual(redirectsOf({ 'permanent-redirect': 'http://redirect.example.com' }), {
    redirect: { code: 301, url: 'http://redirect.example.com' },
  });
  for (const code of [300, 302, 307, 308]) {
    assert.deepEqual(redirectsOf({ 'permanent-redirect': 'https://a.example/x', 'permanent-redirect-code': String(code) })?.redirect, {
      code,
      url: 'https://a.example/x',
    });
  }
  // ingress-nginx's validator takes paths too (its scheme check is temporal-redirect's only): nginx makes them absolute.
  for (const url of ['/new-location', 'https://a.example:8443/p?q=1&r=a,b', 'HTTP://A.EXAMPLE/~x']) {
    assert.equal(redirectsOf({ 'permanent-redirect': url })?.redirect?.url, url);
  }
});

test('temporal-redirect: 302 by default, temporal-redirect-code from 300 to 307, and it wins over permanent-redirect', () => {
  assert.deepEqual(redirectsOf({ 'temporal-redirect': 'https://www.google.com' })?.redirect, { code: 302, url: 'https://www.google.com' });
  assert.deepEqual(redirectsOf({ 'temporal-redirect': 'http://a.example', 'temporal-redirect-code': '307' })?.redirect, {
    code: 307,
    url: 'http://a.example',
  });
  const both = accepted({ 'temporal-redirect': 'http://t.example', 'permanent-redirect': 'http://p.example' });
  assert.deepEqual(both.value.location.redirects?.redirect, { code: 302, url: 'http://t.example' });
  assert.deepEqual(both.warnings, [
    `annotation ${PREFIX}/permanent-redirect: ignored: temporal-redirect is also set, and it wins (as in ingress-nginx)`,
  ]);
});

test('a code outside its range falls back to the default with a warning; a code without its URL only warns', () => {
  const cases = [
    [
      { 'permanent-redirect': 'http://a.example', 'permanent-redirect-code': '309' },
      301,
      'permanent-redirect-code',
      '309 is outside 300-308',
    ],
    [
      { 'permanent-redirect': 'http://a.example', 'permanent-redirect-code': '200' },
      301,
      'permanent-redirect-code',
      '200 is outside 300-308',
    ],
    [{ 'temporal-redirect': 'http://a.example', 'temporal-redirect-code': '308' }, 302, 'temporal-redirect-code', '308 is outside 300-307'],
  ] as const;
  for (const [annotations, code, name, reason] of cases) {
    const result = accepted(annotations);
    assert.equal(result.value.location.redirects?.redirect?.code, code);
    assert.equal(result.warnings.length, 1);
    assert.ok(result.warnings[0]?.startsWith(`annotation ${PREFIX}/${name}: ${reason}`), result.warnings[0]);
  }
  const lonely = accepted({ 'permanent-redirect-code': '308' });
  assert.equal(lonely.value.location.redirects, undefined);
  assert.deepEqual(lonely.warnings, [`annotation ${PREFIX}/permanent-redirect-code: ignored: permanent-redirect is not set`]);
});

test('redirect URLs refuse what ingress-nginx refuses, and temporal-redirect needs an http(s) URL', () => {
  for (const url of [
    'http://a.example/$host',
    'http://a.example/a b',
    'http://a.example/"x',
    "http://a.example/'x",
    'http://a.example/;return 200',
    'http://a.example/{x}',
    'http://a.example/%2e',
    'http://a.example/#top',
    'http://a.example/\\x',
    // Those made of URL characters only ("ssl_engine", "=") are valid relative permanent-redirects, as in ingress-nginx.
    ...HOSTILE_STRINGS.filter((value) => !/^[A-Za-z0-9._~/:,?&=-]+$/.test(value)),
  ]) {
    for (const name of ['permanent-redirect', 'temporal-redirect']) {
      const errors = refused({ [name]: url });
      assert.ok(errors.length > 0 && errors.every((error) => error.includes(`${PREFIX}/${name}`)), `${name} ${JSON.stringify(url)}`);
    }
  }
  for (const url of ['/relative', 'ftp://a.example', 'httpx://a.example', 'https:', 'http://a.example:port/']) {
    assertRefusedWith({ 'temporal-redirect': url }, [`${PREFIX}/temporal-redirect`, 'an http or https URL']);
  }
  for (const code of ['abc', '-301', '301.5', '0x12d']) {
    assertRefusedWith({ 'permanent-redirect': 'http://a.example', 'permanent-redirect-code': code }, [`${PREFIX}/permanent-redirect-code`]);
    assertRefusedWith({ 'temporal-redirect': 'http://a.example', 'temporal-redirect-code': code }, [`${PREFIX}/temporal-redirect-code`]);
  }
});

test('app-root: a path, with references to variables nginx.conf has', () => {
  for (const root of ['/foo', '/app/', '/a-b_c.d~e:f', '/', '//a.example/foo', '/x/$host', '/x/${server_port}/y']) {
    assert.equal(redirectsOf({ 'app-root': root })?.appRoot, root);
  }
  for (const root of ['foo', 'http://a.example/foo', '/a?b=c', '/a b', '/$nosuchvariable', '/$1', '/$', '/${host', ...HOSTILE_STRINGS]) {
    const errors = refused({ 'app-root': root });
    assert.ok(errors.length > 0 && errors.every((error) => error.includes(`${PREFIX}/app-root`)), JSON.stringify(root));
  }
});

test('relative-redirects, preserve-trailing-slash, use-port-in-redirects: true sets them, other words are refused', () => {
  assert.deepEqual(redirectsOf({ 'relative-redirects': 'true', 'preserve-trailing-slash': 'True', 'use-port-in-redirects': '1' }), {
    relative: true,
    preserveTrailingSlash: true,
    usePortInRedirects: true,
  });
  for (const name of ['relative-redirects', 'preserve-trailing-slash', 'use-port-in-redirects']) {
    assertRefusedWith({ [name]: 'yes' }, [`${PREFIX}/${name}`, '"true" or "false"']);
  }
});

test('the risk gate applies ingress-nginx levels: Medium ones are refused under annotations-risk-level Low', () => {
  for (const name of ['app-root', 'permanent-redirect', 'temporal-redirect', 'preserve-trailing-slash']) {
    const value = name === 'preserve-trailing-slash' ? 'true' : name === 'app-root' ? '/a' : 'http://a.example';
    assertRefusedWith({ [name]: value }, [`${PREFIX}/${name}`, 'risk level Medium'], { annotationsRiskLevel: 'Low' });
  }
  assert.equal(
    accepted({ 'use-port-in-redirects': 'true' }, { annotationsRiskLevel: 'Low' }).value.location.redirects?.usePortInRedirects,
    true,
  );
});
