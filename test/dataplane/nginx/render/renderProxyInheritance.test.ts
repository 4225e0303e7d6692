// What a location inherits from the http block instead of writing it
// (renderProxyInheritance.ts): a plain location writes none of the proxy
// defaults, one that differs writes what differs, and a location whose headers
// differ, or that a snippet may change, writes the whole list as before. Each
// test resolves the values nginx applies by nginx's own rule (the innermost
// level that has a directive of that name has all of them), so "inherits the
// same" and "writes the same" are one assertion.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Mirror } from '../../../../src/model/annotations/mirrorAnnotations.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import type { Configuration, Location, LocationAnnotations, Server } from '../../../../src/model/types.js';
import { backend, configuration, ingressRef, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { argsOf, locationOf, only, serverNamed } from './parsedTree.js';

const context = testContext();
const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);

/** The per-location proxy directives the http block now holds. */
const INHERITED = [
  'client_max_body_size',
  'proxy_connect_timeout',
  'proxy_read_timeout',
  'proxy_send_timeout',
  'proxy_buffering',
  'proxy_next_upstream',
  'proxy_next_upstream_tries',
  'proxy_http_version',
  'proxy_set_header',
];

/** Portico's upstream request headers with the default ConfigMap, in order. */
const STANDARD_HEADER_NAMES = [
  'Host',
  'X-Request-ID',
  'X-Real-IP',
  'X-Forwarded-For',
  'X-Forwarded-Host',
  'X-Forwarded-Port',
  'X-Forwarded-Proto',
  'X-Forwarded-Scheme',
  'X-Scheme',
  'X-Original-Forwarded-For',
  'X-Original-Forwarded-Host',
  'Proxy',
  'Connection',
  'Upgrade',
];

const annotated = (path: string, extra: Partial<LocationAnnotations>): Location => {
  const plain = location(path, 'prefix', web.name);
  return { ...plain, annotations: { ...plain.annotations, ...extra } };
};

interface Rendered {
  http: ParsedDirective;
  host: (name: string) => ParsedDirective;
}

function render(servers: Server[], settings: Partial<GlobalSettings> = {}): Rendered {
  const tree = parseNginxConf(renderNginxConf(configuration({ servers, backends: [web], settings }), context));
  return { http: only(tree, 'http'), host: (name) => serverNamed(tree, name) };
}

/** What nginx applies in `block` for `name`: the arguments of the innermost level that has any. */
function effective(levels: readonly ParsedDirective[], name: string): string[][] {
  for (const level of [...levels].reverse()) {
    const own = argsOf(level, name);
    if (own.length > 0) return own;
  }
  return [];
}

const ownDirectives = (block: ParsedDirective): string[] => (block.children ?? []).map((child) => child.name);
const ownInherited = (block: ParsedDirective): string[] => ownDirectives(block).filter((name) => INHERITED.includes(name));
const headerNames = (headers: string[][]): string[] => headers.map(([name = '']) => name);

test('the http block holds the defaults; a plain location writes none of them and nginx applies the same', () => {
  const { http, host } = render([server('plain.example', [location('/app', 'prefix', web.name)])]);
  for (const name of INHERITED) assert.notDeepEqual(argsOf(http, name), [], `http block has ${name}`);
  assert.deepEqual(headerNames(argsOf(http, 'proxy_set_header')), STANDARD_HEADER_NAMES);
  assert.deepEqual(argsOf(http, 'proxy_next_upstream'), [['error', 'timeout']]);
  assert.deepEqual(argsOf(http, 'proxy_next_upstream_tries'), [['3']]);
  assert.deepEqual(argsOf(http, 'proxy_http_version'), [['1.1']]);
  const plainHost = host('plain.example');
  for (const args of [['=', '/app'], ['/app/']]) {
    const block = locationOf(plainHost, ...args);
    assert.deepEqual(ownInherited(block), [], `location ${args.join(' ')} writes none`);
    assert.deepEqual(ownDirectives(block).at(-1), 'proxy_pass');
  }
  assert.deepEqual(ownInherited(plainHost), [], 'nor does the server');
});

test('a location writes only the values its annotations change', () => {
  const slow = annotated('/slow', { proxy: { bodySize: '8m', connectTimeout: 5, readTimeout: 300, sendTimeout: 60, buffering: 'off' } });
  const { http, host } = render([server('tuned.example', [slow])]);
  const block = locationOf(host('tuned.example'), '/slow/');
  assert.deepEqual(ownInherited(block), ['client_max_body_size', 'proxy_read_timeout']);
  assert.deepEqual(effective([http, host('tuned.example'), block], 'proxy_read_timeout'), [['300s']]);
  assert.deepEqual(effective([http, host('tuned.example'), block], 'client_max_body_size'), [['8m']]);
  assert.deepEqual(effective([http, host('tuned.example'), block], 'proxy_connect_timeout'), [['5s']]);
});

test('upstream-vhost and basic auth: the whole list, with their header, as before; the plain neighbour inherits', () => {
  const vhost = annotated('/vhost', { upstreamHeaders: { host: 'internal.example', connection: undefined, forwardedPrefix: undefined } });
  const users = { secret: 'default/users', id: '1', entries: { alice: '$apr1$x' } };
  const basic = annotated('/basic', {
    basicAuth: { type: 'basic', realm: 'r', secret: { namespace: 'default', name: 'users' }, secretType: 'auth-file', users },
  });
  const { http, host } = render([server('headers.example', [vhost, basic, location('/plain', 'prefix', web.name)])]);
  const host_ = host('headers.example');
  const own = argsOf(locationOf(host_, '/vhost/'), 'proxy_set_header');
  assert.deepEqual(headerNames(own), STANDARD_HEADER_NAMES);
  assert.deepEqual(own[0], ['Host', 'internal.example']);
  assert.deepEqual(own.slice(1), argsOf(http, 'proxy_set_header').slice(1));
  const basicHeaders = argsOf(locationOf(host_, '/basic/'), 'proxy_set_header');
  assert.deepEqual(basicHeaders, [['Authorization', ''], ...argsOf(http, 'proxy_set_header')]);
  assert.deepEqual(argsOf(locationOf(host_, '/plain/'), 'proxy_set_header'), []);
});

test("a configuration-snippet's location writes every directive (the snippet's header adds to the list); others inherit", () => {
  const snippet = 'proxy_set_header X-Foo "bar";';
  const { http, host } = render([
    server('snippet.example', [annotated('/snip', { configurationSnippet: snippet }), location('/plain', 'prefix', web.name)]),
  ]);
  const host_ = host('snippet.example');
  const block = locationOf(host_, '/snip/');
  assert.deepEqual(new Set(ownInherited(block)), new Set(INHERITED));
  assert.deepEqual(argsOf(block, 'proxy_set_header'), [['X-Foo', 'bar'], ...argsOf(http, 'proxy_set_header')]);
  assert.deepEqual(ownInherited(locationOf(host_, '/plain/')), []);
});

test("every location of a server with a server-snippet writes every directive; another server's inherit", () => {
  const snippetHost: Server = {
    ...server('owner.example', [location('/a', 'prefix', web.name)]),
    serverSnippet: { ingress: ingressRef('app', 'owner'), snippet: 'client_max_body_size 50m;' },
  };
  const { host } = render([snippetHost, server('other.example', [location('/b', 'prefix', web.name)])]);
  for (const args of [['=', '/a'], ['/a/']]) {
    assert.deepEqual(new Set(ownInherited(locationOf(host('owner.example'), ...args))), new Set(INHERITED), args.join(' '));
  }
  assert.deepEqual(ownInherited(locationOf(host('other.example'), '/b/')), []);
});

test("the ConfigMap's location-snippet or server-snippet: every location writes every directive, the http block still has them", () => {
  for (const settings of [{ locationSnippet: 'set $x 1;' }, { serverSnippet: 'set $x 1;' }]) {
    const { http, host } = render([server('global.example', [location('/a', 'prefix', web.name)])], settings);
    assert.deepEqual(new Set(ownInherited(locationOf(host('global.example'), '/a/'))), new Set(INHERITED), JSON.stringify(settings));
    assert.deepEqual(argsOf(locationOf(host('global.example'), '/a/'), 'proxy_set_header'), argsOf(http, 'proxy_set_header'));
  }
  // An http-snippet may set any of them itself (nginx refuses a second proxy_http_version): the http block holds only what it held before.
  const { http, host } = render([server('h.example', [location('/a', 'prefix', web.name)])], {
    httpSnippet: 'proxy_next_upstream_tries 5;',
  });
  for (const name of ['proxy_next_upstream', 'proxy_http_version', 'proxy_set_header']) assert.deepEqual(argsOf(http, name), [], name);
  assert.deepEqual(new Set(ownInherited(locationOf(host('h.example'), '/a/'))), new Set(INHERITED));
});

test("the mirror's location keeps nginx's own HTTP/1.0 and unbounded retries, which it had before the http block set them", () => {
  const mirror: Mirror = {
    target: { scheme: 'http', host: '10.0.0.9', port: 8080, path: '/copy' },
    host: 'copy.example',
    requestBody: true,
  };
  const { http, host } = render([server('mirror.example', [annotated('/', { mirror })])]);
  const host_ = host('mirror.example');
  const internal = (host_.children ?? []).find((child) => child.name === 'location' && (child.args[1] ?? '').startsWith('/_mirror-'));
  assert.ok(internal !== undefined);
  assert.deepEqual(effective([http, host_, internal], 'proxy_http_version'), [['1.0']]);
  assert.deepEqual(effective([http, host_, internal], 'proxy_next_upstream_tries'), [['0']]);
  assert.deepEqual(effective([http, host_, internal], 'proxy_next_upstream'), [['error', 'timeout']]);
  assert.deepEqual(headerNames(effective([http, host_, internal], 'proxy_set_header')), ['Host']);
});

test('nginx accepts the http defaults with plain, tuned and snippet locations', { skip: missingNginx }, async () => {
  const slow = annotated('/slow', { proxy: { bodySize: '8m', connectTimeout: 5, readTimeout: 300, sendTimeout: 60, buffering: 'off' } });
  const config: Configuration = configuration({
    servers: [server('a.example', [slow, annotated('/snip', { configurationSnippet: 'proxy_set_header X-Foo "bar";' })])],
    backends: [web],
  });
  const rendered = renderNginxConf(config, context);
  assert.deepEqual(argsOf(locationOf(serverNamed(parseNginxConf(rendered), 'a.example'), '/slow/'), 'proxy_set_header'), []);
  await nginxSyntaxCheck(rendered, context);
});
