// The header annotations in nginx.conf: where each directive goes, what a
// location without them gets (nothing), and that nginx loads what it writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEADERS_MORE_MODULE_FILE } from '../../../../src/dataplane/nginx/render/renderHeaders.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration, LocationAnnotations } from '../../../../src/model/types.js';
import { annotations, backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { appliedArgs, allDirectives, argsOf, locationOf, serverNamed } from './parsedTree.js';

const context = testContext();
const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);
const HEADER_DIRECTIVES = ['more_set_headers', 'proxy_cookie_domain', 'proxy_cookie_path', 'proxy_redirect'];

const CUSTOM: LocationAnnotations['customHeaders'] = {
  from: { namespace: undefined, name: 'h' },
  headers: [
    ['My-Custom-Header', '42'],
    ['My-Custom-Header-Dollar', '$remote_addr'],
  ],
  denied: undefined,
};

/**
 * headers.example with `/with` (these annotations) and `/plain` (none), as two Ingresses would make it;
 * server-tokens on, so the http block itself needs no headers-more (renderHeaderSettings.test.ts).
 */
function withHeaders(extra: Partial<LocationAnnotations>): Configuration {
  const annotated = location('/with', 'prefix', web.name);
  return configuration({
    settings: { serverTokens: true },
    servers: [
      server('headers.example', [
        { ...annotated, annotations: { ...annotations({ backendProtocol: extra.backendProtocol ?? 'HTTP' }), ...extra } },
        location('/plain', 'prefix', web.name),
      ]),
    ],
    backends: [web],
  });
}

function rendered(config: Configuration): { tree: ParsedDirective[]; annotated: ParsedDirective; plain: ParsedDirective } {
  const tree = parseNginxConf(renderNginxConf(config, context));
  const host = serverNamed(tree, 'headers.example');
  return { tree, annotated: locationOf(host, '/with/'), plain: locationOf(host, '/plain/') };
}

const names = (block: ParsedDirective): string[] => (block.children ?? []).map((child) => child.name);
const loadsHeadersMore = (tree: ParsedDirective[]): boolean =>
  argsOf({ name: '', args: [], children: tree }, 'load_module').some(([file = '']) => file.endsWith(HEADERS_MORE_MODULE_FILE));
/** What nginx sends upstream from `block`: its own list, else the one it inherits. */
const upstreamHeaders = (tree: ParsedDirective[], block: ParsedDirective, module = 'proxy'): string[][] =>
  appliedArgs(tree, block, `${module}_set_header`);

test("custom-headers: one more_set_headers per header, the value literal (ingress-nginx's escapeLiteralDollar); headers-more loaded", () => {
  const { tree, annotated, plain } = rendered(withHeaders({ customHeaders: CUSTOM }));
  assert.deepEqual(argsOf(annotated, 'more_set_headers'), [['My-Custom-Header: 42'], ['My-Custom-Header-Dollar: ${dollar}remote_addr']]);
  assert.ok(loadsHeadersMore(tree));
  assert.ok(!names(plain).some((name) => HEADER_DIRECTIVES.includes(name)));
});

test('nothing at all without the annotations: no directive, no module', () => {
  const { tree, plain } = rendered(withHeaders({}));
  assert.ok(!loadsHeadersMore(tree));
  assert.ok(!allDirectives(tree).some((directive) => HEADER_DIRECTIVES.includes(directive.name)));
  assert.deepEqual(
    upstreamHeaders(tree, plain).find(([name]) => name === 'Host'),
    ['Host', '$best_http_host'],
  );
});

test('a denied custom-headers answers 503 before the rewrite (which would skip it) and loads no module', () => {
  const { tree, annotated } = rendered(
    withHeaders({ customHeaders: { ...CUSTOM, denied: 'ConfigMap app/h not found' }, rewrite: { ...annotations().rewrite, target: '/' } }),
  );
  assert.deepEqual(argsOf(annotated, 'return'), [['503']]);
  assert.ok(names(annotated).indexOf('return') < names(annotated).indexOf('rewrite'));
  assert.deepEqual(argsOf(annotated, 'more_set_headers'), []);
  assert.ok(!loadsHeadersMore(tree));
});

test('upstream-vhost and connection-proxy-header replace Host and Connection; x-forwarded-prefix comes with the rewrite', () => {
  const rewrite = { ...annotations().rewrite, target: '/foo' };
  const { tree, annotated, plain } = rendered(
    withHeaders({ rewrite, upstreamHeaders: { host: '$service_name.svc', connection: 'keep-alive', forwardedPrefix: '/test/$1' } }),
  );
  const sent = upstreamHeaders(tree, annotated);
  assert.deepEqual(
    sent.filter(([name]) => ['Host', 'Connection', 'X-Forwarded-Prefix'].includes(name ?? '')),
    [
      ['Host', '$service_name.svc'],
      ['Connection', 'keep-alive'],
      ['X-Forwarded-Prefix', '/test/$1'],
    ],
  );
  assert.equal(sent.length, upstreamHeaders(tree, plain).length + 1);
  // A model without the rewrite never sets forwardedPrefix; the renderer keeps the rule too.
  const alone = rendered(withHeaders({ upstreamHeaders: { host: undefined, connection: undefined, forwardedPrefix: '/p' } }));
  assert.ok(!upstreamHeaders(alone.tree, alone.annotated).some(([name]) => name === 'X-Forwarded-Prefix'));
});

test('gRPC: Host replaced, no Connection (HTTP/2 has none), no proxy_* rewrites', () => {
  const { tree, annotated } = rendered(
    withHeaders({
      backendProtocol: 'GRPC',
      upstreamHeaders: { host: 'grpc.internal', connection: 'close', forwardedPrefix: undefined },
      responseRewrites: { cookieDomain: 'off', cookiePath: 'off', redirect: 'off' },
    }),
  );
  assert.deepEqual(
    upstreamHeaders(tree, annotated, 'grpc').find(([name]) => name === 'Host'),
    ['Host', 'grpc.internal'],
  );
  assert.ok(!upstreamHeaders(tree, annotated, 'grpc').some(([name]) => name === 'Connection'));
  assert.ok(!names(annotated).some((name) => HEADER_DIRECTIVES.includes(name)));
});

test('proxy-cookie-* and proxy_redirect after proxy_pass (where nginx requires `proxy_redirect default`)', () => {
  const config = withHeaders({
    responseRewrites: {
      cookieDomain: { from: 'localhost', to: 'example.org' },
      cookiePath: { from: '/one/', to: '/' },
      redirect: 'default',
    },
  });
  const { annotated } = rendered(config);
  assert.deepEqual(argsOf(annotated, 'proxy_cookie_domain'), [['localhost', 'example.org']]);
  assert.deepEqual(argsOf(annotated, 'proxy_cookie_path'), [['/one/', '/']]);
  assert.deepEqual(argsOf(annotated, 'proxy_redirect'), [['default']]);
  assert.ok(names(annotated).indexOf('proxy_pass') < names(annotated).indexOf('proxy_redirect'));
  const pair = rendered(
    withHeaders({ responseRewrites: { cookieDomain: 'off', cookiePath: undefined, redirect: { from: 'hello.com', to: 'goodbye.com' } } }),
  );
  assert.deepEqual(argsOf(pair.annotated, 'proxy_redirect'), [['hello.com', 'goodbye.com']]);
  assert.deepEqual(argsOf(pair.annotated, 'proxy_cookie_domain'), [['off']]);
});

test('passes nginx -t with every header annotation', { skip: missingNginx }, async () => {
  const config = withHeaders({
    rewrite: { ...annotations().rewrite, target: '/' },
    customHeaders: CUSTOM,
    upstreamHeaders: { host: '${service_name}.${namespace}.svc:$service_port', connection: 'close', forwardedPrefix: '/a/$1' },
    responseRewrites: {
      cookieDomain: { from: '~.internal', to: 'example.org' },
      cookiePath: { from: '/one/', to: '/' },
      redirect: 'default',
    },
  });
  await nginxSyntaxCheck(renderNginxConf(config, context), context);
});
