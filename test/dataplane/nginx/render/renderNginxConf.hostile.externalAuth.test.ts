// Hostile values in the fields of external authentication (auth-url and its group): see renderNginxConf.hostile.test.ts.
import assert from 'node:assert/strict';
import type { Configuration, ExternalAuth, Location } from '../../../../src/model/types.js';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { configuration, ingressRef, location, server } from './fixtures.js';
import { externalAuth, withAuth } from './externalAuthFixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, named, skeleton } from './parsedTree.js';
import { HOSTILE_STRINGS, web, context, asText, serverMatching } from './hostileValues.js';

describe('hostile values in external auth fields', () => {
  /** Fields whose `$` nginx interpolates on purpose take the hostile text without its `$` (a stray `$` is refused, below). */
  const dollarless = (value: string): string => value.replaceAll('$', '');
  const authLocation = (value: string, index: number): Location =>
    withAuth(
      location(`/auth${index}`, 'prefix', web.name, { ingress: ingressRef('app', 'auth') }),
      externalAuth({
        url: { scheme: 'https', host: '127.0.0.1', port: 9000, path: `/check?v=${dollarless(value)}` },
        signin: `https://sign.example/${dollarless(value)}`,
        signinRedirectParam: dollarless(value),
        requestRedirect: value,
        cacheKey: dollarless(value),
        proxySetHeaders: [['X-Hostile', dollarless(value)]],
        responseHeaders: ['X-User'],
      }),
    );
  const authScenario = (values: readonly string[]): Configuration =>
    configuration({ servers: [server('auth.example', values.map(authLocation))], backends: [web] });
  const hostileAuth = authScenario(HOSTILE_STRINGS);
  const rendered = renderNginxConf(hostileAuth, context);
  const tree = parseNginxConf(rendered);

  test('the structure is that of a benign rendering, and nginx reads back exactly the arguments given', () => {
    const benignAuth = authScenario(HOSTILE_STRINGS.map((_, index) => `benign${index}`));
    assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(benignAuth, context))));
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostileAuth, context)));
    const names = allDirectives(tree).map((directive) => directive.name);
    assert.ok(!names.includes('ssl_engine'));
    // The Lua modules, and headers-more for server-tokens off.
    assert.equal(names.filter((name) => name === 'load_module').length, 3);
  });

  test('each hostile value is one whole argument of the directive meant for it', () => {
    const host = serverMatching(tree, 'auth.example');
    const authLocations = named(host.children, 'location').filter((block) => block.args[1]?.startsWith('/_external-auth-'));
    assert.equal(authLocations.length, HOSTILE_STRINGS.length);
    HOSTILE_STRINGS.forEach((value) => {
      const block = authLocations.find((candidate) => argsOf(candidate, 'proxy_pass')[0]?.[0]?.endsWith(`/check?v=${dollarless(value)}`));
      assert.ok(block, JSON.stringify(value));
      const headers = Object.fromEntries(argsOf(block, 'proxy_set_header').map(([name = '', header = '']) => [name, header]));
      assert.equal(headers['X-Auth-Request-Redirect'], asText(value));
      assert.equal(headers['X-Hostile'], dollarless(value));
      assert.equal(argsOf(block, 'proxy_cache_key')[0]?.[0], `auth.example${block.args[1] ?? ''}${dollarless(value)}`);
      assert.deepEqual(argsOf(block, 'proxy_ssl_name'), [['127.0.0.1']]);
    });
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });

  const KEEPALIVE = { connections: 4, requests: 100, timeoutSeconds: 10, shareVars: false };

  test('values of validated kinds are refused: host, method, header names, stray `$`', () => {
    const render = (auth: ExternalAuth): string =>
      renderNginxConf(
        configuration({ servers: [server('a.example', [withAuth(location('/', 'prefix', web.name), auth)])], backends: [web] }),
        context,
      );
    for (const value of HOSTILE_STRINGS) {
      const url = { scheme: 'http' as const, host: value, port: 80, path: '' };
      assert.throws(() => render(externalAuth({ url })), /invalid host/);
      assert.throws(() => render(externalAuth({ method: value })), /invalid HTTP method/);
      // `ssl_engine` is a header name like any other: harmless as one.
      if (/^[A-Za-z0-9_-]+$/.test(value)) continue;
      assert.throws(() => render(externalAuth({ responseHeaders: [value] })), /invalid (header name|variable name)/);
      // auth-keepalive's Lua check reads the names from a variable: refused all the same.
      assert.throws(() => render(externalAuth({ responseHeaders: [value], keepalive: KEEPALIVE })), /invalid (header name|variable name)/);
      assert.throws(() => render(externalAuth({ proxySetHeaders: [[value, 'x']] })), /invalid header name/);
    }
    for (const stray of ['$', '${', 'a$ b', '${x']) {
      assert.throws(() => render(externalAuth({ cacheKey: stray })), /malformed nginx variable/);
      assert.throws(() => render(externalAuth({ proxySetHeaders: [['X-A', stray]] })), /malformed nginx variable/);
    }
  });
});
