// enable-cors and the cors-* annotations: ingress-nginx's defaults, its value
// patterns (valid, invalid, hostile), and how it reads an origin list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';
import type { Cors } from '../../../src/model/annotations/corsAnnotations.js';

const corsOf = (annotations: Record<string, string>): Cors | undefined => accepted(annotations).value.location.cors;
const enabled = (annotations: Record<string, string> = {}): Cors | undefined => corsOf({ 'enable-cors': 'true', ...annotations });

const DEFAULTS: Cors = {
  allowOrigins: '*',
  allowMethods: 'GET, PUT, POST, DELETE, PATCH, OPTIONS',
  allowHeaders: 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization',
  exposeHeaders: '',
  allowCredentials: true,
  maxAge: 1728000,
};

test('no CORS without enable-cors "true"; the cors-* annotations alone are ignored with a warning', () => {
  assert.equal('cors' in accepted({}).value.location, false, 'locations without CORS compare equal to those that never had it');
  assert.equal(corsOf({ 'enable-cors': 'false' }), undefined);
  const { value, warnings } = accepted({ 'cors-allow-origin': 'https://a.example', 'cors-max-age': '5' });
  assert.equal(value.location.cors, undefined);
  assert.deepEqual(warnings, [
    `annotation ${PREFIX}/cors-allow-origin: ignored: it has no effect without enable-cors: "true"`,
    `annotation ${PREFIX}/cors-max-age: ignored: it has no effect without enable-cors: "true"`,
  ]);
});

test("enable-cors alone: ingress-nginx's defaults (any origin, credentials, 20 days)", () => {
  assert.deepEqual(enabled(), DEFAULTS);
  assert.deepEqual(corsOf({ 'enable-cors': 'True' }), DEFAULTS);
});

test('every setting', () => {
  assert.deepEqual(
    enabled({
      'cors-allow-origin': 'https://origin.cors.com:8080, https://*.example.com,null,test://localhost',
      'cors-allow-methods': 'POST, GET',
      'cors-allow-headers': 'DNT, User-Agent',
      'cors-expose-headers': 'X-CustomResponseHeader, X-CustomSecondHeader',
      'cors-allow-credentials': 'false',
      'cors-max-age': '200',
    }),
    {
      allowOrigins: ['https://origin.cors.com:8080', 'https://*.example.com', 'null', 'test://localhost'],
      allowMethods: 'POST, GET',
      allowHeaders: 'DNT, User-Agent',
      exposeHeaders: 'X-CustomResponseHeader, X-CustomSecondHeader',
      allowCredentials: false,
      maxAge: 200,
    },
  );
});

test('origin lists as ingress-nginx reads them: "*" anywhere wins, empty entries dropped, blank means any', () => {
  assert.equal(enabled({ 'cors-allow-origin': '*, foo.bar.com' })?.allowOrigins, '*');
  assert.equal(enabled({ 'cors-allow-origin': 'https://a.example, *' })?.allowOrigins, '*');
  assert.equal(enabled({ 'cors-allow-origin': '      ' })?.allowOrigins, '*');
  assert.deepEqual(
    enabled({ 'cors-allow-origin': 'https://origin-123.cors.com:8080,   ,https://origin-321.cors.com:8080,' })?.allowOrigins,
    ['https://origin-123.cors.com:8080', 'https://origin-321.cors.com:8080'],
  );
  assert.deepEqual(enabled({ 'cors-allow-origin': 'https://a.example,https://a.example' })?.allowOrigins, ['https://a.example']);
});

test('an origin without a scheme is skipped with a warning, as ingress-nginx skips it', () => {
  const { value, warnings } = accepted({
    'enable-cors': 'true',
    'cors-allow-origin': 'origin.cors.com:8080, https://origin2.cors.com, https://origin.com',
  });
  assert.deepEqual(value.location.cors?.allowOrigins, ['https://origin2.cors.com', 'https://origin.com']);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? '', /cors-allow-origin: origin "origin\.cors\.com:8080" ignored: an origin needs a scheme/);
  // Only skipped ones: nothing is allowed (ingress-nginx then sends no CORS header at all).
  assert.deepEqual(enabled({ 'cors-allow-origin': 'foo.bar.com' })?.allowOrigins, []);
});

test('invalid and hostile values are refused', () => {
  const refusedValues: Array<[string, string]> = [
    ['enable-cors', 'yes'],
    ['cors-allow-credentials', 'maybe'],
    ['cors-max-age', '-1'],
    ['cors-max-age', '1.5'],
    ['cors-max-age', '99999999999'],
    ['cors-allow-origin', 'HTTPS://a.example'],
    ['cors-allow-origin', 'https://a.example/path'],
    ['cors-allow-origin', 'https://*.*.example.com'],
    ['cors-allow-origin', 'https://a.example:80x'],
    ['cors-allow-origin', 'https://a.example; return 200'],
    ['cors-allow-origin', 'https://$host'],
    ['cors-allow-origin', "https://a.example' ; include /etc/passwd; '"],
    ['cors-allow-origin', `https://${'a'.repeat(1000)}.example`],
    ['cors-allow-methods', 'GET, $request_method'],
    ['cors-allow-methods', 'GET;POST'],
    ['cors-allow-methods', 'GET,  POST'],
    ['cors-allow-methods', ', GET'],
    ['cors-allow-headers', 'X-A; add_header X 1'],
    ['cors-allow-headers', 'X-A\\"'],
    ['cors-allow-headers', '${dollar}'],
    ['cors-expose-headers', 'X-A:1'],
    ['cors-expose-headers', '"X-A"'],
    ['cors-expose-headers', 'X-A, $pid'],
  ];
  for (const [name, value] of refusedValues) {
    assertRefusedWith({ 'enable-cors': 'true', [name]: value }, [`${PREFIX}/${name}`, 'invalid value']);
  }
});

test('the list patterns accept what ingress-nginx accepts', () => {
  assert.equal(enabled({ 'cors-allow-methods': 'GET,POST,PUT' })?.allowMethods, 'GET,POST,PUT');
  assert.equal(enabled({ 'cors-allow-methods': 'get post' })?.allowMethods, 'get post');
  assert.equal(enabled({ 'cors-expose-headers': '*' })?.exposeHeaders, '*');
  assert.equal(enabled({ 'cors-expose-headers': 'X_A,X-B, *' })?.exposeHeaders, 'X_A,X-B, *');
  assert.equal(enabled({ 'cors-allow-headers': 'X-Forwarded-For,  X_Custom ,' })?.allowHeaders, 'X-Forwarded-For,  X_Custom ,');
  assert.equal(enabled({ 'cors-max-age': '0' })?.maxAge, 0);
});

test('the patterns never backtrack: a long near-miss is refused at once', () => {
  const started = process.hrtime.bigint();
  for (const name of ['cors-allow-methods', 'cors-expose-headers']) {
    for (const nearMiss of [`${'a'.repeat(900)}!`, `${'a '.repeat(450)}!`, `${'a,'.repeat(450)}!`]) {
      assertRefusedWith({ 'enable-cors': 'true', [name]: nearMiss }, ['invalid value']);
    }
  }
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  assert.ok(elapsedMs < 500, `${elapsedMs} ms`);
});
