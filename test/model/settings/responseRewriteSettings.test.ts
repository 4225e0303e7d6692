// proxy-cookie-domain, proxy-cookie-path, proxy-redirect-from and
// proxy-redirect-to: the annotations' syntax, and their defaults.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseIngressAnnotations } from '../../../src/model/annotations/parseIngressAnnotations.js';
import type { GlobalSettings } from '../../../src/model/settings/globalSettings.js';
import type { LocationAnnotations } from '../../../src/model/types.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

/** The location annotations of an Ingress with these annotations under these settings. */
function locationOf(annotations: Record<string, string>, settings: GlobalSettings): LocationAnnotations {
  const parsed = parseIngressAnnotations(annotations, { prefix: 'nginx.ingress.kubernetes.io', settings });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  assert.deepEqual(parsed.warnings, []);
  return parsed.value.location;
}

test('the keys with the annotations syntax; "off" is the default (nothing rendered)', () => {
  const { settings, problems } = parse({
    'proxy-cookie-domain': 'backend.internal example.com',
    'proxy-cookie-path': '/app /',
    'proxy-redirect-from': 'http://backend/',
    'proxy-redirect-to': 'https://example.com/',
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(settings.proxyCookieDomain, { from: 'backend.internal', to: 'example.com' });
  assert.deepEqual(settings.proxyCookiePath, { from: '/app', to: '/' });
  assert.equal(settings.proxyRedirectFrom, 'http://backend/');
  assert.equal(settings.proxyRedirectTo, 'https://example.com/');
  assert.deepEqual(parse({ 'proxy-cookie-path': 'off', 'proxy-redirect-from': 'off' }).settings, parse({}).settings);
});

for (const [key, value] of [
  ['proxy-cookie-path', '/a'],
  ['proxy-cookie-path', '/a /b; include /etc/passwd'],
  ['proxy-cookie-domain', '$host example.com'],
  ['proxy-redirect-from', '~(a+)+'],
  ['proxy-redirect-to', 'a b'],
] as const) {
  test(`${key}: ${JSON.stringify(value)} keeps the default with a problem`, () => {
    const { settings, problems } = parse({ [key]: value });
    assert.deepEqual(settings, parse({}).settings);
    assert.match(problems[0] ?? '', new RegExp(`^ConfigMap key ${key}: invalid value`));
  });
}

test('an Ingress without the annotations takes them; its own annotation (even "off") wins', () => {
  const { settings } = parse({ 'proxy-cookie-path': '/app /', 'proxy-redirect-from': 'http://backend/', 'proxy-redirect-to': '/' });
  assert.deepEqual(locationOf({}, settings).responseRewrites, {
    cookieDomain: undefined,
    cookiePath: { from: '/app', to: '/' },
    redirect: { from: 'http://backend/', to: '/' },
  });
  const own = locationOf(
    { 'nginx.ingress.kubernetes.io/proxy-cookie-path': 'off', 'nginx.ingress.kubernetes.io/proxy-redirect-to': 'https://other/' },
    settings,
  );
  assert.deepEqual(own.responseRewrites, {
    cookieDomain: undefined,
    cookiePath: 'off',
    redirect: { from: 'http://backend/', to: 'https://other/' },
  });
});
