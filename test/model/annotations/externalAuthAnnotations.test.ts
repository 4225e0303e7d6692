import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAuthUrl, parseSigninUrl } from '../../../src/model/annotations/externalAuthUrl.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import { accepted, assertRefusedWith, PREFIX, refused } from './annotationTestSupport.js';

const AUTH_URL = 'https://auth.example/oauth2/auth';

test('no external auth without auth-url or global-auth-url', () => {
  assert.equal(accepted({}).value.location.externalAuth, undefined);
});

test('auth-url alone: ingress-nginx defaults for everything else', () => {
  assert.deepEqual(accepted({ 'auth-url': AUTH_URL }).value.location.externalAuth, {
    url: { scheme: 'https', host: 'auth.example', port: 443, path: '/oauth2/auth' },
    method: undefined,
    signin: undefined,
    signinRedirectParam: 'rd',
    responseHeaders: [],
    requestRedirect: undefined,
    cacheKey: undefined,
    cacheDurations: [{ codes: [200, 202, 401], time: '5m' }],
    alwaysSetCookie: false,
    proxySetHeadersFrom: undefined,
    proxySetHeaders: [],
    denied: undefined,
    snippet: undefined,
    global: false,
    keepalive: undefined,
  });
});

test('every annotation of the group', () => {
  const auth = accepted({
    'auth-url': 'http://auth.auth-system.svc.cluster.local:4180/oauth2/auth?host=$host&uri=$request_uri',
    'auth-method': 'POST',
    'auth-signin': 'https://$host/oauth2/start',
    'auth-signin-redirect-param': 'next',
    'auth-response-headers': 'X-Auth-Request-User, X-Auth-Request-Email,,',
    'auth-proxy-set-headers': 'auth-system/headers',
    'auth-request-redirect': 'https://app.example/back?x=1',
    'auth-cache-key': '$remote_user${http_authorization}-v1',
    'auth-cache-duration': '200 202 10m, 401 30s',
    'auth-always-set-cookie': 'true',
  }).value.location.externalAuth;
  assert.deepEqual(auth?.url, {
    scheme: 'http',
    host: 'auth.auth-system.svc.cluster.local',
    port: 4180,
    path: '/oauth2/auth?host=$host&uri=$request_uri',
  });
  assert.equal(auth?.method, 'POST');
  assert.equal(auth?.signin, 'https://$host/oauth2/start');
  assert.equal(auth?.signinRedirectParam, 'next');
  assert.deepEqual(auth?.responseHeaders, ['X-Auth-Request-User', 'X-Auth-Request-Email']);
  assert.deepEqual(auth?.proxySetHeadersFrom, { namespace: 'auth-system', name: 'headers' });
  assert.equal(auth?.requestRedirect, 'https://app.example/back?x=1');
  assert.equal(auth?.cacheKey, '$remote_user${http_authorization}-v1');
  assert.deepEqual(auth?.cacheDurations, [
    { codes: [200, 202], time: '10m' },
    { codes: [401], time: '30s' },
  ]);
  assert.equal(auth?.alwaysSetCookie, true);
});

test('URLs are written back from their parts: lower-case scheme and host, the default port implied', () => {
  assert.deepEqual(parseAuthUrl('HTTPS://Auth.Example:443'), {
    ok: true,
    value: { scheme: 'https', host: 'auth.example', port: 443, path: '' },
  });
  assert.deepEqual(parseAuthUrl('http://10.0.0.1:8080?x=1'), {
    ok: true,
    value: { scheme: 'http', host: '10.0.0.1', port: 8080, path: '/?x=1' },
  });
  assert.deepEqual(parseAuthUrl('http://[2001:db8::1]:81/a'), {
    ok: true,
    value: { scheme: 'http', host: '[2001:db8::1]', port: 81, path: '/a' },
  });
  assert.deepEqual(parseSigninUrl('HTTPS://Login.$host/Start?a=1'), { ok: true, value: 'https://login.$host/Start?a=1' });
});

test('auth-url refuses what is not a plain http(s) URL, and variables outside the path and query (CVE-2025-24514)', () => {
  for (const value of [
    'auth.example/check',
    'ftp://auth.example/',
    'http://',
    'http:///check',
    'http://user:pass@auth.example/',
    'http://auth..example/',
    'http://$host/check',
    'http://auth.example:$port/',
    'http://auth.example:0/',
    'http://auth.example:65536/',
    'http://300.1.1.1/',
    'http://auth.example/check;return 200',
    'http://auth.example/check"; } location / { return 200; #',
    "http://auth.example/check'",
    'http://auth.example/check?x=$',
    'http://auth.example/check?x=${host}',
    'http://auth.example/check#frag',
    'http://auth.example/a b',
    'http://auth.example/%2e%2e',
    'http://auth.example/{x}',
    'http://auth.example/check\\n',
  ]) {
    assertRefusedWith({ 'auth-url': value }, [`${PREFIX}/auth-url`, 'invalid value']);
  }
});

test('control characters are refused before any parser sees them', () => {
  for (const value of [
    'http://auth.example/check\nproxy_pass http://evil;',
    'http://auth.example/\r',
    'http://auth.example/\t',
    'http://a\u0085b/',
  ]) {
    assertRefusedWith({ 'auth-url': value }, ['control character']);
  }
});

test('auth-signin may use variables in its host; nothing else nginx would read as syntax', () => {
  assert.equal(
    accepted({ 'auth-url': AUTH_URL, 'auth-signin': 'https://$host/start?rd=$escaped' }).value.location.externalAuth?.signin,
    'https://$host/start?rd=$escaped',
  );
  for (const value of [
    'https://$/x',
    'javascript:alert(1)',
    '/relative',
    'https://a.example/x;y',
    'https://a.example/"',
    'https://a.example/${x}',
  ]) {
    assertRefusedWith({ 'auth-url': AUTH_URL, 'auth-signin': value }, [`${PREFIX}/auth-signin`]);
  }
});

test('the other values are checked with their own character sets', () => {
  const invalid: Array<[string, string]> = [
    ['auth-method', 'get'],
    ['auth-method', 'GET;'],
    ['auth-signin-redirect-param', 'rd=x'],
    ['auth-signin-redirect-param', 'r&d'],
    ['auth-response-headers', 'X-User, X User'],
    ['auth-response-headers', 'X-User;'],
    ['auth-response-headers', 'X-User:'],
    ['auth-proxy-set-headers', 'Headers'],
    ['auth-proxy-set-headers', 'a/b/c'],
    ['auth-request-redirect', 'https://a.example/$host'],
    ['auth-request-redirect', 'https://a.example/"x'],
    ['auth-cache-key', '$'],
    ['auth-cache-key', '$http_x;'],
    ['auth-cache-key', '${x'],
    ['auth-cache-key', 'a b'],
    ['auth-cache-duration', '5m 200'],
    ['auth-cache-duration', '200'],
    ['auth-cache-duration', '200 1h 30m'],
    ['auth-cache-duration', '200 5y'],
    ['auth-cache-duration', '600 5m'],
    ['auth-cache-duration', 'any 5m'],
    ['auth-always-set-cookie', 'yes'],
    ['auth-keepalive', '-1'],
    ['auth-keepalive-share-vars', 'maybe'],
    ['enable-global-auth', 'no'],
  ];
  for (const [annotation, value] of invalid) {
    assertRefusedWith({ 'auth-url': AUTH_URL, [annotation]: value }, [`${PREFIX}/${annotation}`, 'invalid value']);
  }
});

describe('auth-keepalive', () => {
  const HTTP1 = { useHttp2: false };
  const keepaliveOf = (annotations: Record<string, string>, settings: object = HTTP1) =>
    accepted({ 'auth-url': AUTH_URL, ...annotations }, settings).value.location.externalAuth?.keepalive;

  test('unset or 0: no keep-alive (auth_request), as ingress-nginx', () => {
    assert.equal(keepaliveOf({}), undefined);
    assert.equal(keepaliveOf({ 'auth-keepalive': '0' }), undefined);
  });

  test("alone: ingress-nginx's defaults, 1000 requests, 60 s, variables not shared", () => {
    assert.deepEqual(keepaliveOf({ 'auth-keepalive': '10' }), { connections: 10, requests: 1000, timeoutSeconds: 60, shareVars: false });
  });

  test('with its tuning, at the bounds nginx accepts', () => {
    const annotations = {
      'auth-keepalive': '65536',
      'auth-keepalive-requests': '2147483647',
      'auth-keepalive-timeout': '2147483',
      'auth-keepalive-share-vars': 'true',
    };
    assert.deepEqual(keepaliveOf(annotations), { connections: 65536, requests: 2147483647, timeoutSeconds: 2147483, shareVars: true });
    assert.deepEqual(accepted({ 'auth-url': AUTH_URL, ...annotations }, HTTP1).warnings, []);
  });

  test('with HTTP/2 on (the default), ignored as ingress-nginx does: its Lua subrequest is not used for HTTP/2', () => {
    assert.equal(keepaliveOf({ 'auth-keepalive': '10' }, {}), undefined);
  });

  test('requests or timeout 0 turn it off, with a warning', () => {
    for (const annotation of ['auth-keepalive-requests', 'auth-keepalive-timeout']) {
      const { value, warnings } = accepted({ 'auth-url': AUTH_URL, 'auth-keepalive': '10', [annotation]: '0' }, HTTP1);
      assert.equal(value.location.externalAuth?.keepalive, undefined, annotation);
      assert.deepEqual(warnings, [`annotation ${PREFIX}/${annotation}: 0 turns auth-keepalive off; ignored`]);
    }
  });

  test('its tuning without auth-keepalive is ignored with a warning', () => {
    const { value, warnings } = accepted({ 'auth-url': AUTH_URL, 'auth-keepalive-requests': '10', 'auth-keepalive-share-vars': 'true' });
    assert.equal(value.location.externalAuth?.keepalive, undefined);
    assert.equal(warnings.length, 2);
    assert.ok(warnings.every((warning) => warning.endsWith('no effect without auth-keepalive; ignored')));
  });

  test('without auth-url it is ignored with a warning', () => {
    const { value, warnings } = accepted({ 'auth-keepalive': '10' }, HTTP1);
    assert.equal(value.location.externalAuth, undefined);
    assert.deepEqual(warnings, [`annotation ${PREFIX}/auth-keepalive: no effect without auth-url; ignored`]);
  });

  test('invalid and hostile values refuse the Ingress', () => {
    const invalid: Array<[string, string]> = [
      ['auth-keepalive', '65537'],
      ['auth-keepalive', '1.5'],
      ['auth-keepalive', '10;'],
      ['auth-keepalive', '1 2'],
      ['auth-keepalive-requests', '-1'],
      ['auth-keepalive-requests', '2147483648'],
      ['auth-keepalive-requests', '1e3'],
      ['auth-keepalive-timeout', '60s'],
      ['auth-keepalive-timeout', '2147484'],
      ['auth-keepalive-timeout', '1; ssl_engine x'],
      ['auth-keepalive-share-vars', 'on'],
    ];
    for (const [annotation, value] of invalid) {
      assertRefusedWith({ 'auth-url': AUTH_URL, 'auth-keepalive': '1', [annotation]: value }, [`${PREFIX}/${annotation}`, 'invalid value']);
    }
    assertRefusedWith({ 'auth-url': AUTH_URL, 'auth-keepalive': '1', 'auth-keepalive-share-vars': 'true\n' }, [
      `${PREFIX}/auth-keepalive-share-vars`,
      'control character',
    ]);
  });
});

test('the group without auth-url is ignored with a warning, as in ingress-nginx', () => {
  const { value, warnings } = accepted({ 'auth-signin': 'https://login.example/' });
  assert.equal(value.location.externalAuth, undefined);
  assert.deepEqual(warnings, [`annotation ${PREFIX}/auth-signin: no effect without auth-url; ignored`]);
});

test('risk levels: auth-url and auth-signin are High, refused under annotations-risk-level Medium', () => {
  assertRefusedWith({ 'auth-url': AUTH_URL }, ['risk level High'], { annotationsRiskLevel: 'Medium' });
  assert.ok(accepted({ 'auth-url': AUTH_URL, 'auth-method': 'GET' }, { annotationsRiskLevel: 'High' }).value.location.externalAuth);
});

test('auth-snippet is a snippet: refused unless snippets are admitted, then one line in the auth location', () => {
  assert.match(refused({ 'auth-url': AUTH_URL, 'auth-snippet': 'proxy_set_header X-A b;' }).join('\n'), /snippet annotations are refused/);
  const admitted = { allowSnippetAnnotations: true, annotationsRiskLevel: 'Critical' as const };
  assert.equal(
    accepted({ 'auth-url': AUTH_URL, 'auth-snippet': 'proxy_set_header X-A b;' }, admitted).value.location.externalAuth?.snippet,
    'proxy_set_header X-A b;',
  );
});

const GLOBAL = parseGlobalSettings(
  {
    'global-auth-url': 'http://auth.example:4180/check',
    'global-auth-signin': 'https://login.example/start',
    'global-auth-response-headers': 'X-User',
    'global-auth-snippet': 'proxy_set_header X-Global on;',
  },
  { cpus: 2 },
);

test('global-auth-url applies to an Ingress without auth-url, unless enable-global-auth is false', () => {
  assert.deepEqual(GLOBAL.problems, []);
  const auth = accepted({}, GLOBAL.settings).value.location.externalAuth;
  assert.equal(auth?.global, true);
  assert.deepEqual(auth?.url, { scheme: 'http', host: 'auth.example', port: 4180, path: '/check' });
  assert.equal(auth?.signin, 'https://login.example/start');
  assert.deepEqual(auth?.responseHeaders, ['X-User']);
  // A snippet: only when the ConfigMap admits snippets.
  assert.equal(auth?.snippet, undefined);
  assert.equal(accepted({ 'enable-global-auth': 'false' }, GLOBAL.settings).value.location.externalAuth, undefined);
  // The Ingress's own auth-url wins.
  assert.equal(accepted({ 'auth-url': AUTH_URL }, GLOBAL.settings).value.location.externalAuth?.global, false);
  const snippets = { ...GLOBAL.settings, allowSnippetAnnotations: true, annotationsRiskLevel: 'Critical' as const };
  assert.equal(accepted({}, snippets).value.location.externalAuth?.snippet, 'proxy_set_header X-Global on;');
});

test('invalid global-auth-* values keep their defaults, with a problem each', () => {
  const { settings, problems } = parseGlobalSettings(
    {
      'global-auth-url': 'http://$host/check',
      'global-auth-method': 'FETCH',
      'global-auth-response-headers': 'X;Y',
      'global-auth-cache-duration': 'forever',
      'no-auth-locations': '/ok, not-a-path',
    },
    { cpus: 2 },
  );
  assert.equal(problems.length, 5, problems.join('\n'));
  assert.equal(settings.globalAuthUrl, undefined);
  assert.deepEqual(settings.noAuthLocations, ['/.well-known/acme-challenge']);
});
