// nginx.conf for external auth: what a protected location and its internal
// auth location hold, what other locations do not get, and nginx -t.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration, Location } from '../../../../src/model/types.js';
import { externalAuth, withAuth } from './externalAuthFixtures.js';
import { backend, configuration, ingressRef, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf, luaBlocks, named, only, serverNamed } from './parsedTree.js';

const context = testContext();
const web = backend('app/web:80', [{ address: '10.0.0.1', port: 8080 }]);
const plain = (path: string): Location => location(path, 'prefix', web.name, { ingress: ingressRef('app', 'web') });

function render(locations: Location[], settings: Configuration['settings'] | object = {}, tls = false): ParsedDirective[] {
  return parseNginxConf(
    renderNginxConf(
      configuration({ servers: [server('_', []), server('a.example', locations, { tls })], backends: [web], settings }),
      context,
    ),
  );
}

function authLocations(host: ParsedDirective): ParsedDirective[] {
  return named(host.children, 'location').filter((block) => block.args[1]?.startsWith('/_external-auth-'));
}

function headers(block: ParsedDirective): Record<string, string> {
  return Object.fromEntries(argsOf(block, 'proxy_set_header').map(([name = '', value = '']) => [name, value]));
}

describe('a location with auth-url', () => {
  const auth = externalAuth({
    url: { scheme: 'https', host: 'auth.example', port: 8443, path: '/check?u=$host' },
    method: 'POST',
    responseHeaders: ['X-User', 'X-Auth-Email'],
    signin: 'https://login.example/start',
    cacheKey: '$http_authorization',
    cacheDurations: [{ codes: [200], time: '1m' }],
    alwaysSetCookie: true,
    proxySetHeaders: [['X-From-Map', 'v $host']],
  });
  const tree = render([withAuth(plain('/app'), auth), plain('/open')], {}, true);
  const host = serverNamed(tree, 'a.example');
  const [check] = authLocations(host);
  assert.ok(check);
  const protectedBlock = locationOf(host, '/app/');

  test('asks the internal auth location, keeps its Set-Cookie and headers, sends a 401 to the sign-in location', () => {
    assert.deepEqual(argsOf(protectedBlock, 'auth_request'), [[check.args[1] ?? '']]);
    assert.deepEqual(argsOf(protectedBlock, 'auth_request_set'), [
      ['$auth_cookie', '$upstream_http_set_cookie'],
      ['$portico_auth_response_0', '$upstream_http_x_user'],
      ['$portico_auth_response_1', '$upstream_http_x_auth_email'],
    ]);
    assert.deepEqual(argsOf(protectedBlock, 'add_header'), [
      ['Set-Cookie', '$auth_cookie', 'always'],
      // A location's add_header hides the server's.
      ['Strict-Transport-Security', '$hsts_header', 'always'],
    ]);
    const [[code, equals, signin] = []] = argsOf(protectedBlock, 'error_page');
    assert.deepEqual([code, equals], ['401', '=']);
    assert.ok(signin?.startsWith('@portico_auth_signin_'));
    const signinBlock = locationOf(host, signin ?? '');
    assert.deepEqual(argsOf(signinBlock, 'set'), [
      ['$portico_auth_signin', 'https://login.example/start?rd=$pass_access_scheme://$http_host'],
    ]);
    assert.equal(headers(protectedBlock)['X-User'], '$portico_auth_response_0');
    assert.equal(headers(protectedBlock)['X-Auth-Email'], '$portico_auth_response_1');
  });

  test("the auth location: internal, bodyless, ingress-nginx's headers, the cache, TLS to the auth host", () => {
    assert.deepEqual(argsOf(check, 'internal'), [[]]);
    assert.deepEqual(argsOf(check, 'proxy_pass_request_body'), [['off']]);
    assert.deepEqual(argsOf(check, 'proxy_method'), [['POST']]);
    const sent = headers(check);
    assert.equal(sent.Host, 'auth.example');
    assert.equal(sent['X-Original-URL'], '$scheme://$http_host$request_uri');
    assert.equal(sent['X-Sent-From'], 'nginx-ingress-controller');
    assert.equal(sent['X-Auth-Request-Redirect'], '$request_uri');
    assert.equal(sent['X-From-Map'], 'v $host');
    assert.deepEqual(argsOf(check, 'proxy_cache'), [['portico_auth_cache']]);
    assert.deepEqual(argsOf(check, 'proxy_cache_valid'), [['200', '1m']]);
    assert.deepEqual(argsOf(check, 'proxy_ssl_name'), [['auth.example']]);
    // The subrequest shares the location's log variables, which no server resets: it sets none.
    assert.deepEqual(argsOf(check, 'set'), []);
    const [[target = ''] = []] = argsOf(check, 'proxy_pass');
    const upstream = /^https:\/\/(portico_auth_[0-9a-f]+)\/check\?u=\$host$/.exec(target)?.[1];
    assert.ok(upstream, target);
    const http = only(tree, 'http');
    const upstreams = named(http.children, 'upstream').filter((block) => block.args[0] === upstream);
    assert.deepEqual(
      upstreams.map((block) => argsOf(block, 'server')),
      [[['auth.example:8443']]],
    );
    assert.equal(argsOf(http, 'proxy_cache_path').length, 1);
  });

  test('a location without external auth gets none of it', () => {
    const open = locationOf(host, '/open/');
    for (const name of ['auth_request', 'auth_request_set', 'add_header', 'error_page']) assert.deepEqual(argsOf(open, name), [], name);
    assert.deepEqual(
      Object.keys(headers(open)).filter((name) => name.startsWith('X-U')),
      [],
    );
  });
});

test('without external auth: no auth location, upstream, cache or Lua of it', () => {
  const text = renderNginxConf(configuration({ servers: [server('a.example', [plain('/')])], backends: [web] }), context);
  for (const absent of ['auth_request', '_external-auth', 'portico_auth_', 'proxy_cache', 'portico_external_auth.signin_redirect']) {
    assert.ok(!text.includes(absent), absent);
  }
});

test('a sign-in URL that sets the redirect parameter itself is returned as it is', () => {
  const tree = render([withAuth(plain('/'), externalAuth({ signin: 'https://login.example/?rd=https://home.example/' }))]);
  const [signin] = named(serverNamed(tree, 'a.example').children, 'location').filter((block) => block.args[0]?.startsWith('@'));
  assert.ok(signin);
  assert.deepEqual(argsOf(signin, 'return'), [['302', 'https://login.example/?rd=https://home.example/']]);
});

test('a denied location answers 503 and has no auth location', () => {
  const tree = render([withAuth(plain('/'), externalAuth({ denied: 'ConfigMap app/x not found' }))]);
  const host = serverNamed(tree, 'a.example');
  assert.deepEqual(authLocations(host), []);
  assert.deepEqual(argsOf(locationOf(host, '/'), 'return'), [['503']]);
});

test('global auth: not for the catch-all nor no-auth-locations; one upstream for every location', () => {
  const global = externalAuth({ global: true });
  const tree = parseNginxConf(
    renderNginxConf(
      configuration({
        servers: [
          server('_', [withAuth(location('/', 'prefix', web.name, { ingress: undefined }), global)]),
          server('a.example', [
            withAuth(plain('/'), global),
            withAuth(plain('/.well-known/acme-challenge'), global),
            withAuth(plain('/b'), global),
          ]),
        ],
        backends: [web],
      }),
      context,
    ),
  );
  assert.deepEqual(authLocations(serverNamed(tree, '_')), []);
  const host = serverNamed(tree, 'a.example');
  assert.equal(authLocations(host).length, 2);
  assert.deepEqual(argsOf(locationOf(host, '/.well-known/acme-challenge/'), 'auth_request'), []);
  assert.equal(named(only(tree, 'http').children, 'upstream').filter((block) => block.args[0]?.startsWith('portico_auth_')).length, 1);
  assert.ok(!allDirectives(tree).some((directive) => directive.name === 'proxy_cache_path'));
});

test('every feature together passes nginx -t', { skip: missingNginx }, async () => {
  const all = externalAuth({
    url: { scheme: 'https', host: '127.0.0.1', port: 9443, path: '/check?u=$host&m=$request_method' },
    method: 'GET',
    signin: 'https://$host/oauth2/start?theme=x',
    responseHeaders: ['X-User'],
    requestRedirect: 'https://a.example/back',
    cacheKey: '$remote_user${http_authorization}',
    cacheDurations: [
      { codes: [200, 202], time: '10m' },
      { codes: [], time: '1m' },
    ],
    alwaysSetCookie: true,
    proxySetHeaders: [['X-A', 'quoted "v" \\ $host']],
  });
  const config = configuration({
    servers: [
      server('_', []),
      server('a.example', [withAuth(plain('/'), all), withAuth(plain('/exact'), { ...all, global: true })], { tls: true }),
    ],
    backends: [web],
  });
  const text = renderNginxConf(config, context);
  for (const directive of ['auth_request ', 'proxy_cache_path ', 'error_page 401', 'content_by_lua_block'])
    assert.ok(text.includes(directive), directive);
  await nginxSyntaxCheck(text, context);
});

describe('auth-keepalive', () => {
  const keepalive = { connections: 8, requests: 500, timeoutSeconds: 30, shareVars: true };
  const auth = externalAuth({ keepalive, responseHeaders: ['X-User', 'X-Auth-Email'], signin: 'https://login.example/start' });
  const config = configuration({
    servers: [server('_', []), server('a.example', [withAuth(plain('/kept'), auth), withAuth(plain('/each'), externalAuth())])],
    backends: [web],
  });
  const text = renderNginxConf(config, context);
  const tree = parseNginxConf(text);
  const host = serverNamed(tree, 'a.example');
  const kept = locationOf(host, '/kept/');
  const upstreams = named(only(tree, 'http').children, 'upstream').filter((block) => block.args[0]?.startsWith('portico_auth_'));

  test('an upstream of its own keeps idle connections with the annotations values', () => {
    assert.equal(upstreams.length, 2);
    const pooled = upstreams.filter((block) => argsOf(block, 'keepalive').length > 0);
    assert.equal(pooled.length, 1);
    const [upstream] = pooled;
    assert.ok(upstream);
    assert.deepEqual(argsOf(upstream, 'keepalive'), [['8']]);
    assert.deepEqual(argsOf(upstream, 'keepalive_requests'), [['500']]);
    assert.deepEqual(argsOf(upstream, 'keepalive_timeout'), [['30s']]);
    const check = authLocations(host).find((block) => argsOf(block, 'proxy_pass')[0]?.[0]?.includes(upstream.args[0] ?? ''));
    assert.ok(check);
    assert.equal(headers(check).Connection, '');
    assert.deepEqual(argsOf(check, 'proxy_http_version'), [['1.1']]);
  });

  test('the location asks through the Lua subrequest, not auth_request, with the variables it reads and sets', () => {
    assert.deepEqual(argsOf(kept, 'auth_request'), []);
    assert.deepEqual(argsOf(kept, 'auth_request_set'), []);
    const check = authLocations(host).find((block) => headers(block).Connection === '');
    assert.ok(check);
    assert.deepEqual(argsOf(kept, 'set').slice(-5), [
      ['$portico_auth_path', check.args[1] ?? ''],
      ['$auth_cookie', ''],
      ['$portico_auth_response_headers', 'X-User,X-Auth-Email'],
      ['$portico_auth_response_0', ''],
      ['$portico_auth_response_1', ''],
    ]);
    assert.deepEqual(luaBlocks([kept]), [['access_by_lua_block', 'portico_external_auth.check({ share_vars = true })']]);
    assert.deepEqual(argsOf(kept, 'add_header'), [['Set-Cookie', '$auth_cookie']]);
    assert.equal(argsOf(kept, 'error_page')[0]?.[0], '401');
  });

  test('a location without auth-keepalive keeps auth_request and gets no Lua check', () => {
    const each = locationOf(host, '/each/');
    assert.equal(argsOf(each, 'auth_request').length, 1);
    assert.deepEqual(luaBlocks([each]), []);
    assert.ok(!text.includes('share_vars = false'));
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(text, context);
  });

  // nginx refuses a second access_by_lua block in a location ("is duplicate"): with basic auth, both checks share one.
  const users = { secret: 'app/users', id: 'users-1', entries: { alice: '{PLAIN}a' } };
  const basicAuth = {
    type: 'basic' as const,
    realm: 'Team',
    secret: { namespace: undefined, name: 'users' },
    secretType: 'auth-file' as const,
    users,
  };
  const both = withAuth(plain('/both'), auth);
  const withBoth = configuration({
    servers: [server('_', []), server('a.example', [{ ...both, annotations: { ...both.annotations, basicAuth } }])],
    backends: [web],
  });
  const bothText = renderNginxConf(withBoth, context);

  test('with basic auth too: one access_by_lua block, basic auth first, then the subrequest', () => {
    const block = locationOf(serverNamed(parseNginxConf(bothText), 'a.example'), '/both/');
    const [access, ...others] = luaBlocks([block]).filter(([name]) => name === 'access_by_lua_block');
    assert.deepEqual(others, []);
    assert.match(access?.[1] ?? '', /^portico_authentication\.access\(\{ key = \d+ \}\)$/);
    assert.equal(access?.[2], 'portico_external_auth.check({ share_vars = true })');
  });

  test('with basic auth too: passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(bothText, context);
  });
});
