// custom-http-errors, disable-proxy-intercept-errors and default-backend as
// ingress-nginx's template writes them: error_page to one named location per
// target and code, the no-endpoints fallback, and nothing for other locations.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ErrorPages } from '../../../../src/model/annotations/errorPageAnnotations.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Backend, Configuration, Location } from '../../../../src/model/types.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf, named, serverNamed } from './parsedTree.js';
import { logVariables } from './logVariables.js';

const context = testContext();
const web = backend('default/web:80', [{ address: '10.0.0.1', port: 8080 }]);
const empty = backend('default/empty:80', [], { name: 'empty' });
const errors = backend('default/errors:80', [{ address: '10.0.0.2', port: 8080 }], { name: 'errors' });
const errorsWithoutEndpoints = backend('default/errors-down:80', [], { name: 'errors-down' });
const global = backend('default/fallback:80', [{ address: '10.0.0.3', port: 8080 }], { name: 'fallback' });

function withErrorPages(path: string, backendName: string, errorPages: Partial<ErrorPages> | undefined): Location {
  const plain = location(path, 'exact', backendName);
  if (errorPages === undefined) return plain;
  const full: ErrorPages = {
    codes: [],
    interceptUpstream: true,
    global: false,
    defaultBackendService: undefined,
    defaultBackend: undefined,
    ...errorPages,
  };
  return { ...plain, annotations: { ...plain.annotations, errorPages: full } };
}

function render(locations: Location[], defaultBackend?: Backend): { conf: string; host: ParsedDirective; config: Configuration } {
  const config = configuration({
    servers: [server('_', []), server('errors.example', locations)],
    backends: [web, empty, errors, errorsWithoutEndpoints, ...(defaultBackend ? [defaultBackend] : [])],
    defaultBackend: defaultBackend?.name,
  });
  const conf = renderNginxConf(config, context);
  return { conf, host: serverNamed(parseNginxConf(conf), 'errors.example'), config };
}

const errorLocations = (host: ParsedDirective): ParsedDirective[] =>
  named(host.children, 'location').filter((block) => block.args[0]?.startsWith('@custom_'));

const headers = (block: ParsedDirective): Record<string, string> =>
  Object.fromEntries(argsOf(block, 'proxy_set_header').map(([name = '', value = '']) => [name, value]));

describe('custom-http-errors with a default-backend that has endpoints', () => {
  const { conf, host } = render([withErrorPages('/a', web.name, { codes: [404, 503], defaultBackend: errors.name })], global);
  const a = locationOf(host, '=', '/a');

  test('the location intercepts upstream errors and sends each code to a named location', () => {
    assert.deepEqual(argsOf(a, 'proxy_intercept_errors'), [['on']]);
    const pages = argsOf(a, 'error_page');
    assert.deepEqual(
      pages.map(([code, equals]) => [code, equals]),
      [
        ['404', '='],
        ['503', '='],
      ],
    );
    assert.deepEqual(
      pages.map((page) => page[2]).sort(),
      errorLocations(host)
        .map((block) => block.args[0])
        .sort(),
    );
  });

  test('each named location proxies / to the default-backend through the balancer with the X-* headers', () => {
    const blocks = errorLocations(host);
    assert.equal(blocks.length, 2);
    for (const block of blocks) {
      const code = /_([0-9]{3})$/.exec(block.args[0] ?? '')?.[1];
      assert.deepEqual(headers(block), {
        'X-Code': code,
        'X-Format': '$http_accept',
        'X-Original-URI': '$request_uri',
        'X-Namespace': '$namespace',
        'X-Ingress-Name': '$ingress_name',
        'X-Service-Name': '$service_name',
        'X-Service-Port': '$service_port',
        'X-Request-ID': '$req_id',
        'X-Forwarded-For': '$remote_addr',
        Host: '$best_http_host',
      });
      assert.deepEqual(argsOf(block, 'set'), [
        ['$proxy_upstream_name', errors.name],
        ['$proxy_alternative_upstream_name', ''],
      ]);
      assert.deepEqual(argsOf(block, 'rewrite'), [['(.*)', '/', 'break']]);
      assert.deepEqual(argsOf(block, 'proxy_intercept_errors'), [['off']]);
      assert.deepEqual(argsOf(block, 'proxy_pass'), [['http://upstream_balancer']]);
    }
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    const output = await nginxSyntaxCheck(conf, context);
    assert.ok(!output.includes('[warn]') && !output.includes('[emerg]'), output);
  });
});

test('without a usable default-backend the codes go to --default-backend-service, else to a 404', () => {
  for (const defaultBackend of [undefined, errorsWithoutEndpoints.name]) {
    const { host } = render([withErrorPages('/a', web.name, { codes: [500], defaultBackend })], global);
    const [block] = errorLocations(host);
    assert.ok(block);
    assert.deepEqual(argsOf(block, 'set')[0], ['$proxy_upstream_name', global.name]);
  }
  const { host } = render([withErrorPages('/a', web.name, { codes: [500] })]);
  const [block] = errorLocations(host);
  assert.ok(block);
  assert.deepEqual(argsOf(block, 'return'), [['404']]);
  assert.deepEqual(argsOf(block, 'proxy_pass'), []);
});

test('disable-proxy-intercept-errors keeps error_page but does not intercept upstream answers', () => {
  const { host } = render([withErrorPages('/a', web.name, { codes: [404], interceptUpstream: false, defaultBackend: errors.name })]);
  const a = locationOf(host, '=', '/a');
  assert.deepEqual(argsOf(a, 'proxy_intercept_errors'), []);
  assert.equal(argsOf(a, 'error_page').length, 1);
  assert.equal(errorLocations(host).length, 1);
});

test('locations of one server sharing a target and code share one named location', () => {
  const { host } = render(
    [withErrorPages('/a', web.name, { codes: [404, 503] }), withErrorPages('/b', web.name, { codes: [503] })],
    global,
  );
  assert.equal(errorLocations(host).length, 2);
});

test("a location whose Service has no endpoints goes to its Ingress's default-backend with X-Code 503", () => {
  const { host } = render([withErrorPages('/a', empty.name, { defaultBackend: errors.name })]);
  const a = locationOf(host, '=', '/a');
  const sets = argsOf(a, 'set');
  assert.deepEqual(
    sets.filter(([name]) => name === '$proxy_upstream_name'),
    [
      ['$proxy_upstream_name', empty.name],
      ['$proxy_upstream_name', errors.name],
    ],
  );
  assert.equal(logVariables(a).$service_name, 'empty');
  const sent = headers(a);
  assert.equal(sent['X-Code'], '503');
  assert.equal(sent['X-Service-Name'], '$service_name');
  assert.equal(sent['X-Format'], '$http_accept');
  assert.equal(errorLocations(host).length, 0);
});

test('the fallback needs endpoints on the default-backend and none on the Service', () => {
  for (const [own, fallback] of [
    [web.name, errors.name],
    [empty.name, errorsWithoutEndpoints.name],
  ] as const) {
    const { host } = render([withErrorPages('/a', own, { defaultBackend: fallback })]);
    const a = locationOf(host, '=', '/a');
    assert.deepEqual(
      argsOf(a, 'set').filter(([name]) => name === '$proxy_upstream_name'),
      [['$proxy_upstream_name', own]],
    );
    assert.equal(headers(a)['X-Code'], undefined);
  }
});

test('locations without the annotations get none of it', () => {
  const { conf } = render([withErrorPages('/a', empty.name, undefined)], global);
  const words = allDirectives(parseNginxConf(conf));
  for (const name of ['error_page', 'proxy_intercept_errors']) assert.ok(!words.some((found) => found.name === name), name);
  assert.ok(!conf.includes('@custom_'));
  assert.ok(!conf.includes('X-Code'));
});

test("the ConfigMap's custom-http-errors go to --default-backend-service even with a default-backend, and are intercepted", () => {
  const { host } = render(
    [withErrorPages('/a', web.name, { codes: [502], global: true, interceptUpstream: true, defaultBackend: errors.name })],
    global,
  );
  assert.deepEqual(argsOf(locationOf(host, '=', '/a'), 'proxy_intercept_errors'), [['on']]);
  const [block] = errorLocations(host);
  assert.ok(block);
  assert.deepEqual(argsOf(block, 'set')[0], ['$proxy_upstream_name', global.name]);
});
