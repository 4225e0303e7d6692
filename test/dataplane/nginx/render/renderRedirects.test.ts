// Where the redirect annotations land in nginx.conf (renderRedirects.ts), and
// that locations without them get nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Redirects } from '../../../../src/model/annotations/redirectAnnotations.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { argsOf, locationOf, named, only, serverNamed } from './parsedTree.js';

const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);

function hostTree(redirects: Redirects | undefined, options: { tls?: boolean; https?: number } = {}): ParsedDirective[] {
  const annotated = location('/app', 'prefix', web.name, { annotations: { redirects } });
  const config = configuration({
    servers: [server('a.example.com', [location('/', 'prefix', web.name), annotated], { tls: options.tls ?? false })],
    backends: [web],
  });
  return parseNginxConf(renderNginxConf(config, testContext({ ports: { https: options.https ?? 8443 } })));
}

const host = (tree: ParsedDirective[]): ParsedDirective => serverNamed(tree, 'a.example.com');
const annotatedLocation = (tree: ParsedDirective[]): ParsedDirective => locationOf(host(tree), '/app/');
const REDIRECT_DIRECTIVES = ['absolute_redirect', 'port_in_redirect', 'return'];

describe('redirect annotations in nginx.conf', () => {
  test('nothing for locations without them; the http block turns the port off and maps the URI once', () => {
    const tree = hostTree(undefined);
    for (const block of [locationOf(host(tree), '/'), annotatedLocation(tree)]) {
      assert.deepEqual(
        block.children?.filter((child) => REDIRECT_DIRECTIVES.includes(child.name) || child.name === 'if'),
        [],
      );
    }
    assert.deepEqual(named(host(tree).children, 'if'), []);
    const http = only(tree, 'http');
    assert.deepEqual(argsOf(http, 'port_in_redirect'), [['off']]);
    const uriMap = named(http.children, 'map').find((map) => map.args[1] === '$redirect_request_uri');
    assert.deepEqual(uriMap?.args, ['$request_uri', '$redirect_request_uri']);
    assert.deepEqual(
      uriMap?.children?.map((entry) => [entry.name, ...entry.args]),
      [
        ['~^(.*)/$', '$1'],
        ['default', '$request_uri'],
      ],
    );
  });

  test('permanent/temporal-redirect: one return, before the HTTPS redirect; relative and port options', () => {
    const tree = hostTree(
      { redirect: { code: 308, url: 'https://elsewhere.example/x?a=b' }, relative: true, usePortInRedirects: true },
      { tls: true },
    );
    const names = (annotatedLocation(tree).children ?? []).map((child) => child.name);
    assert.deepEqual(argsOf(annotatedLocation(tree), 'return'), [['308', 'https://elsewhere.example/x?a=b']]);
    assert.deepEqual(argsOf(annotatedLocation(tree), 'absolute_redirect'), [['off']]);
    assert.deepEqual(argsOf(annotatedLocation(tree), 'port_in_redirect'), [['on']]);
    // Both are rewrite-phase directives of the location: the first one written answers.
    assert.ok(names.indexOf('return') < names.indexOf('if'), names.join(' '));
    assert.ok(names.indexOf('return') < names.indexOf('proxy_pass'), names.join(' '));
  });

  test('app-root: one `if ($uri = /)` in the server (before any location), the first location with one wins', () => {
    const config = configuration({
      servers: [
        server('a.example.com', [
          location('/', 'prefix', web.name, { annotations: { redirects: { appRoot: '/first' } } }),
          location('/b', 'prefix', web.name, { annotations: { redirects: { appRoot: '/second$host' } } }),
        ]),
      ],
      backends: [web],
    });
    const block = host(parseNginxConf(renderNginxConf(config, testContext())));
    const ifs = named(block.children, 'if');
    assert.deepEqual(
      ifs.map((directive) => [directive.args, directive.children?.map((child) => [child.name, ...child.args])]),
      [[['($uri', '=', '/)'], [['return', '302', '$scheme://$http_host/first']]]],
    );
    const names = (block.children ?? []).map((child) => child.name);
    assert.ok(names.indexOf('if') < names.indexOf('location'));
  });

  test("the HTTPS redirect's Location: no port, no trailing slash, unless the annotations ask", () => {
    const location = (redirects: Redirects | undefined, https = 8443): string[][] =>
      argsOf(only(annotatedLocation(hostTree(redirects, { tls: true, https })).children, 'if'), 'return');
    assert.deepEqual(location(undefined), [['308', 'https://$redirect_host$redirect_request_uri']]);
    assert.deepEqual(location({ preserveTrailingSlash: true }), [['308', 'https://$redirect_host$request_uri']]);
    assert.deepEqual(location({ usePortInRedirects: true }), [['308', 'https://$redirect_host:8443$redirect_request_uri']]);
    // As ingress-nginx: the port even when it is 443.
    assert.deepEqual(location({ usePortInRedirects: true, preserveTrailingSlash: true }, 443), [
      ['308', 'https://$redirect_host:443$request_uri'],
    ]);
  });

  test("the ConfigMap's relative-redirects: absolute_redirect off in the http block", () => {
    const render = (relativeRedirects: boolean): string[][] =>
      argsOf(
        only(
          parseNginxConf(renderNginxConf(configuration({ servers: [server('_', [])], settings: { relativeRedirects } }), testContext())),
          'http',
        ),
        'absolute_redirect',
      );
    assert.deepEqual(render(false), []);
    assert.deepEqual(render(true), [['off']]);
  });

  test('refuses a status code outside 300-308', () => {
    for (const code of [299, 309, 1.5]) {
      assert.throws(() => hostTree({ redirect: { code, url: 'http://x' } }), /invalid redirect code/);
    }
  });
});
