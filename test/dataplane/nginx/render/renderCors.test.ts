// CORS as rendered (renderCors.ts): the http maps shared by equal settings,
// the headers and the preflight's 204 in each CORS location, nothing elsewhere,
// and ingress-nginx's origin matching (test/e2e/annotations/cors.go's cases).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { originRegex } from '../../../../src/dataplane/nginx/render/renderCors.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Cors } from '../../../../src/model/annotations/corsAnnotations.js';
import type { Location } from '../../../../src/model/types.js';
import { externalAuth, withAuth } from './externalAuthFixtures.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf, named, only, serverNamed } from './parsedTree.js';

const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);
const context = testContext();

const ANY: Cors = {
  allowOrigins: '*',
  allowMethods: 'GET, PUT, POST, DELETE, PATCH, OPTIONS',
  allowHeaders: 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization',
  exposeHeaders: '',
  allowCredentials: true,
  maxAge: 1728000,
};
const LISTED: Cors = { ...ANY, allowOrigins: ['https://origin.cors.com:8080', 'http://*.origin.com'], exposeHeaders: 'X-A, X-B' };

function withCors(path: string, cors: Cors | undefined): Location {
  const plain = location(path, 'exact', web.name);
  return cors === undefined ? plain : { ...plain, annotations: { ...plain.annotations, cors } };
}

function render(locations: Location[], tls = false): { conf: string; tree: ParsedDirective[]; host: ParsedDirective } {
  const conf = renderNginxConf(
    configuration({ servers: [server('_', []), server('cors.example', locations, { tls })], backends: [web] }),
    context,
  );
  const tree = parseNginxConf(conf);
  return { conf, tree, host: serverNamed(tree, 'cors.example') };
}

const corsMaps = (tree: ParsedDirective[]): ParsedDirective[] =>
  named(only(tree, 'http').children, 'map').filter((map) => map.args[1]?.startsWith('$portico_cors'));

describe('CORS in the rendered nginx.conf', () => {
  test('a location without CORS gets nothing, and nginx.conf has no CORS map', () => {
    const { conf, tree } = render([withCors('/plain', undefined)]);
    assert.equal(corsMaps(tree).length, 0);
    assert.ok(!conf.includes('Access-Control'));
    assert.ok(!conf.includes('portico_cors'));
  });

  test('"*": literal headers, every OPTIONS request answered 204 (as ingress-nginx), one shared map', () => {
    const { tree, host } = render([withCors('/any', ANY), withCors('/plain', undefined)]);
    const any = locationOf(host, '=', '/any');
    const headers = [
      ['Access-Control-Allow-Origin', '*', 'always'],
      ['Access-Control-Allow-Credentials', 'true', 'always'],
      ['Access-Control-Allow-Methods', ANY.allowMethods, 'always'],
      ['Access-Control-Allow-Headers', ANY.allowHeaders, 'always'],
      ['Access-Control-Max-Age', '1728000', 'always'],
    ];
    assert.deepEqual(argsOf(any, 'add_header'), headers);
    const preflight = only(any.children, 'if');
    assert.deepEqual(preflight.args, ['($portico_cors_options', '=', 'on)']);
    assert.deepEqual(argsOf(preflight, 'add_header'), [
      ...headers,
      ['Content-Type', 'text/plain charset=UTF-8', 'always'],
      ['Content-Length', '0', 'always'],
    ]);
    assert.deepEqual(argsOf(preflight, 'return'), [['204']]);
    assert.deepEqual(
      corsMaps(tree).map((map) => [map.args, map.children?.map((entry) => [entry.name, ...entry.args])]),
      [
        [
          ['$request_method', '$portico_cors_options'],
          [
            ['OPTIONS', 'on'],
            ['default', ''],
          ],
        ],
      ],
    );
    const plain = locationOf(host, '=', '/plain');
    assert.equal(named(plain.children, 'add_header').length + named(plain.children, 'if').length, 0);
  });

  test('an origin list: each header is a map on the matched origin, shared by locations with equal settings', () => {
    const { tree, host } = render([withCors('/a', LISTED), withCors('/b', LISTED), withCors('/c', { ...LISTED, maxAge: 5 })]);
    const a = locationOf(host, '=', '/a');
    const b = locationOf(host, '=', '/b');
    const c = locationOf(host, '=', '/c');
    assert.deepEqual(argsOf(a, 'add_header'), argsOf(b, 'add_header'));
    assert.notDeepEqual(argsOf(a, 'add_header'), argsOf(c, 'add_header'));
    const names = argsOf(a, 'add_header').map(([name]) => name);
    assert.deepEqual(names, [
      'Access-Control-Allow-Origin',
      'Access-Control-Allow-Credentials',
      'Access-Control-Allow-Methods',
      'Access-Control-Allow-Headers',
      'Access-Control-Expose-Headers',
      'Access-Control-Max-Age',
    ]);
    const maps = new Map(corsMaps(tree).map((map) => [map.args[1], map]));
    // The options map, then per settings: origin, preflight and 6 - 1 header maps.
    assert.equal(maps.size, 1 + 2 * 7);
    const [, originVariable = ''] = argsOf(a, 'add_header')[0] ?? [];
    const originMap = maps.get(originVariable);
    assert.deepEqual(originMap?.args[0], '$http_origin');
    assert.deepEqual(
      originMap?.children?.map((entry) => [entry.name, ...entry.args]),
      [
        ['default', ''],
        ['~*^(?:https://origin\\.cors\\.com:8080|http://[A-Za-z0-9-]+\\.origin\\.com)$', '$http_origin'],
      ],
    );
    for (const [name, variable = ''] of argsOf(a, 'add_header').slice(1)) {
      const map = maps.get(variable);
      assert.equal(map?.args[0], originVariable, name);
      assert.deepEqual(map?.children?.[0], { name: '', args: [''] }, `${name}: nothing for a foreign origin`);
    }
    assert.deepEqual(maps.get(argsOf(a, 'add_header')[4]?.[1])?.children?.[1]?.args, ['X-A, X-B']);
    const preflight = only(a.children, 'if');
    const preflightVariable = (preflight.args[0] ?? '').slice(1);
    assert.equal(maps.get(preflightVariable)?.args[0], originVariable);
    assert.deepEqual(maps.get(preflightVariable)?.children?.[1]?.args, ['$portico_cors_options']);
  });

  test('without credentials or expose headers, no such header', () => {
    const { host } = render([withCors('/a', { ...ANY, allowCredentials: false })]);
    const names = argsOf(locationOf(host, '=', '/a'), 'add_header').map(([name]) => name);
    assert.ok(!names.includes('Access-Control-Allow-Credentials'));
    assert.ok(!names.includes('Access-Control-Expose-Headers'));
  });

  test('an origin list that kept no origin renders nothing', () => {
    const { conf } = render([withCors('/a', { ...ANY, allowOrigins: [] })]);
    assert.ok(!conf.includes('Access-Control'));
  });

  test('over TLS with HSTS, the server header is repeated once in the location and in the preflight', () => {
    const { host } = render([withCors('/a', LISTED)], true);
    const a = locationOf(host, '=', '/a');
    for (const block of [a, named(a.children, 'if')[0] ?? a]) {
      assert.equal(argsOf(block, 'add_header').filter(([name]) => name === 'Strict-Transport-Security').length, 1);
    }
  });

  test('with external auth (whose add_header repeats HSTS too), HSTS is still written once', () => {
    const { host } = render([withAuth(withCors('/a', LISTED), externalAuth())], true);
    const headers = argsOf(locationOf(host, '=', '/a'), 'add_header').map(([name]) => name);
    assert.equal(headers.filter((name) => name === 'Strict-Transport-Security').length, 1);
    assert.ok(headers.includes('Access-Control-Allow-Origin') && headers.includes('Set-Cookie'));
  });

  test('the preflight comes before the HTTPS redirect', () => {
    const { host } = render([withCors('/a', LISTED)], true);
    const ifs = named(locationOf(host, '=', '/a').children, 'if');
    assert.equal(ifs.length, 2);
    assert.match(ifs[0]?.args[0] ?? '', /^\(\$portico_cors_/);
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    const { conf } = render([withCors('/a', LISTED), withCors('/b', ANY), withCors('/c', { ...LISTED, allowOrigins: ['null'] })], true);
    await nginxSyntaxCheck(conf, context);
  });

  test('an origin list of the longest value the parser accepts (1000 characters) stays one nginx argument', () => {
    // The worst case: the most wildcards (17 characters each in the regex) in distinct shortest origins.
    const letters = (n: number): string => (n < 26 ? '' : letters(Math.floor(n / 26) - 1)) + String.fromCharCode(97 + (n % 26));
    const origins: string[] = [];
    while ([...origins, `${letters(origins.length)}://*.`].join(',').length <= 1000) origins.push(`${letters(origins.length)}://*.`);
    const { tree } = render([withCors('/a', { ...ANY, allowOrigins: origins })]);
    assert.ok(allDirectives(tree).length > 0);
  });
});

describe("origin matching: test/e2e/annotations/cors.go's cases", () => {
  const matches = (allowed: string[], origin: string): boolean => new RegExp(originRegex(allowed).slice(2), 'i').test(origin);
  const cases: Array<[string[], string, boolean]> = [
    [['https://origin.cors.com:8080'], 'https://origin.cors.com:8080', true],
    [['https://origin.cors.com:8080', 'https://origin2.cors.com'], 'https://origin.cors.com:8080', true],
    [['http://origin2.cors.com', 'https://origin.com'], 'http://no.origin.com', false],
    [['https://origin2.cors.com', 'https://origin.com'], 'origin.cors.com:8080', false],
    [['https://origin2.cors.com', 'https://origin.com'], 'https://origin.com', true],
    [['https://foo.bar.com'], 'https://fooxbar.com', false],
    [['http://origin.cors.com:8080', 'http://origin.com:8080'], 'http://origin.com:8080', true],
    [['https://origin2.cors.com', 'http://origin.com'], 'http://origin.com:8080', false],
    [['http://origin.cors.com:8080', 'http://origin.com:8080'], 'http://origin.com', false],
    [['http://*.origin.cors.com', 'http://*.origin.com:8080'], 'http://foo.origin.cors.com', true],
    [['http://*.origin.cors.com', 'http://*.origin.com:8080'], 'http://bar-foo.origin.cors.com', true],
    [['http://*.origin.cors.com', 'http://*.origin.com:8080'], 'http://bar.foo.origin.cors.com', false],
    [['http://origin.cors.com:8080', 'http://*.origin.com:8080'], 'http://abc.origin.com:8080', true],
    [['http://origin.cors.com:8080', 'http://*.origin.com:8080'], 'http://abc.origin.com', false],
    [['http://origin.cors.com:8080', 'http://*.origin.com:8080'], 'http://origin.com:8080', false],
    [['https://origin-123.cors.com:8080', 'https://origin-321.cors.com:8080'], 'https://unknown.cors.com:8080', false],
    [['test://localhost', 'tauri://localhost:3000'], 'test://localhost', true],
    [['test://localhost', 'tauri://localhost:3000'], 'tauri://localhost:3000', true],
    // Case-insensitive, as nginx's ~*.
    [['https://origin.com'], 'HTTPS://ORIGIN.COM', true],
    [['null'], 'null', true],
    // Anchored at the start too (ingress-nginx's regex is not): another scheme's origin, or a longer name, is not allowed.
    [['https://origin.com'], 'xhttps://origin.com', false],
    [['null'], 'https://xnull', false],
    [['https://origin.com'], 'https://origin.com.evil', false],
  ];
  for (const [allowed, origin, expected] of cases) {
    test(`${JSON.stringify(allowed)} ${expected ? 'allows' : 'refuses'} ${origin}`, () => {
      assert.equal(matches(allowed, origin), expected);
    });
  }
});
