import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parseCookieDomain,
  parseCookiePath,
  parseRedirectFrom,
  parseRedirectTo,
} from '../../../src/model/annotations/responseRewriteAnnotations.js';
import { HOSTILE_STRINGS } from '../../dataplane/nginx/render/hostileValues.js';
import { accepted, assertRefusedWith } from './annotationTestSupport.js';

/** What the hostile strings carry that nginx would read as syntax or a variable. */
const NGINX_SYNTAX = /[;{}"'$#\\]/;

const rewritesOf = (annotations: Record<string, string>) => accepted(annotations).value.location.responseRewrites;

test('without the annotations nothing is rewritten (nginx defaults)', () => {
  assert.equal(rewritesOf({}), undefined);
});

test("proxy-cookie-domain and proxy-cookie-path: off, or one from/to pair (ingress-nginx's e2e values)", () => {
  assert.deepEqual(rewritesOf({ 'proxy-cookie-domain': 'localhost example.org', 'proxy-cookie-path': '/one/ /' }), {
    cookieDomain: { from: 'localhost', to: 'example.org' },
    cookiePath: { from: '/one/', to: '/' },
    redirect: undefined,
  });
  assert.equal(rewritesOf({ 'proxy-cookie-domain': 'off' })?.cookieDomain, 'off');
  assert.deepEqual(rewritesOf({ 'proxy-cookie-domain': '~.internal.example example.com' })?.cookieDomain, {
    from: '~.internal.example',
    to: 'example.com',
  });
});

test('cookie rewrites that nginx would refuse or read as syntax are refused', () => {
  for (const parse of [parseCookieDomain, parseCookiePath]) {
    for (const value of [
      'one',
      'a b c',
      'a;b c',
      'a "b"',
      'a $host',
      'a {b}',
      ...HOSTILE_STRINGS.filter((value) => NGINX_SYNTAX.test(value)),
    ]) {
      assert.equal(parse(value).ok, false, value);
    }
  }
  // ingress-nginx's cookie-path characters include "?", a quantifier to the regex a leading "~" makes.
  assert.equal(parseCookiePath('~? /').ok, false);
  assert.equal(parseCookiePath('~/a? /').ok, true);
  assert.equal(parseCookieDomain('a.example/x?y b').ok, false);
  assertRefusedWith({ 'proxy-cookie-path': '/one/' }, ['proxy-cookie-path', 'two words']);
});

test("proxy_redirect as ingress-nginx's template: default and off alone, else from and to", () => {
  const redirectOf = (annotations: Record<string, string>) => accepted(annotations);
  for (const from of ['default', 'off']) {
    const { value, warnings } = redirectOf({ 'proxy-redirect-from': from, 'proxy-redirect-to': 'goodbye.com' });
    assert.equal(value.location.responseRewrites?.redirect, from);
    assert.match(warnings.join(), /proxy-redirect-to: unused with proxy-redirect-from/);
  }
  const pair = redirectOf({ 'proxy-redirect-from': 'hello.com', 'proxy-redirect-to': 'goodbye.com' });
  assert.deepEqual(pair.warnings, []);
  assert.deepEqual(pair.value.location.responseRewrites?.redirect, { from: 'hello.com', to: 'goodbye.com' });
  // from without to (or to off): nothing, as the template writes nothing.
  const fromOnly: Array<Record<string, string>> = [
    { 'proxy-redirect-from': 'hello.com' },
    { 'proxy-redirect-from': 'hello.com', 'proxy-redirect-to': 'off' },
  ];
  for (const annotations of fromOnly) {
    const { value, warnings } = redirectOf(annotations);
    assert.equal(value.location.responseRewrites, undefined);
    assert.match(warnings.join(), /proxy-redirect-from: no effect without a proxy-redirect-to/);
  }
  // to without from: from's default is off.
  const toAlone = redirectOf({ 'proxy-redirect-to': 'goodbye.com' });
  assert.equal(toAlone.value.location.responseRewrites?.redirect, 'off');
  assert.match(toAlone.warnings.join(), /proxy-redirect-to: unused without proxy-redirect-from/);
});

test('proxy-redirect values are one word of URL characters; a "~" regex must compile', () => {
  for (const value of ['http://backend:8080/', '/', 'https://a.example/x?y=1&z=2']) assert.equal(parseRedirectFrom(value).ok, true, value);
  assert.equal(parseRedirectFrom('~^http://internal/(a|b)').ok, false);
  assert.equal(parseRedirectFrom('~http://internal/').ok, true);
  assert.equal(parseRedirectFrom('~?').ok, false);
  for (const parse of [parseRedirectFrom, parseRedirectTo]) {
    for (const value of ['a b', 'a;b', 'a"b', '$host', 'a{b}', ...HOSTILE_STRINGS.filter((value) => NGINX_SYNTAX.test(value))])
      assert.equal(parse(value).ok, false, value);
  }
  assertRefusedWith({ 'proxy-redirect-from': 'a b', 'proxy-redirect-to': '/' }, ['proxy-redirect-from', 'one word']);
});
