// backend-protocol FCGI and AUTO_HTTP, and http2-push-preload, as rendered: what a location passes, and to what.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastCgi } from '../../../../src/model/annotations/fastCgiAnnotations.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { BackendProtocol, Configuration } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { argsOf, locationOf } from './parsedTree.js';
import { context, serverMatching, web } from './hostileValues.js';

function scenario(backendProtocol: BackendProtocol, fastCgi?: Partial<FastCgi>): Configuration {
  const base = location('/', 'prefix', web.name, { annotations: { backendProtocol } });
  const full: FastCgi = { index: undefined, paramsFrom: undefined, params: [], denied: undefined, ...fastCgi };
  const annotations = fastCgi === undefined ? base.annotations : { ...base.annotations, fastCgi: full };
  return configuration({ servers: [server('app.example.com', [{ ...base, annotations }])], backends: [web] });
}

const rootOf = (config: Configuration) =>
  locationOf(serverMatching(parseNginxConf(renderNginxConf(config, context)), 'app.example.com'), '/');

describe('backend-protocol FCGI', () => {
  test("fastcgi_pass to the Lua balancer, nginx's standard parameters, and no proxy_* request headers", () => {
    const root = rootOf(scenario('FCGI', {}));
    assert.deepEqual(argsOf(root, 'fastcgi_pass'), [['upstream_balancer']]);
    assert.deepEqual(argsOf(root, 'proxy_pass'), []);
    assert.deepEqual(argsOf(root, 'proxy_set_header'), []);
    const params = new Map(argsOf(root, 'fastcgi_param').map(([name = '', ...value]) => [name, value]));
    assert.deepEqual(params.get('REQUEST_METHOD'), ['$request_method']);
    assert.deepEqual(params.get('HTTPS'), ['$https', 'if_not_empty']);
    // httpoxy: the client's Proxy header never reaches the program as HTTP_PROXY.
    assert.deepEqual(params.get('HTTP_PROXY'), ['']);
    // The no-endpoints server speaks HTTP: the rewrite hook answers 503 for a FastCGI location.
    assert.ok(root.children?.some((child) => child.name === 'rewrite_by_lua_block'));
  });

  test("fastcgi_index, and the ConfigMap's parameters replacing the standard ones of the same name", () => {
    const root = rootOf(
      scenario('FCGI', {
        index: 'index.php',
        params: [
          ['REDIRECT_STATUS', '201'],
          ['SCRIPT_FILENAME', '/srv$fastcgi_script_name'],
        ],
      }),
    );
    assert.deepEqual(argsOf(root, 'fastcgi_index'), [['index.php']]);
    const params = argsOf(root, 'fastcgi_param');
    assert.deepEqual(
      params.filter(([name]) => name === 'REDIRECT_STATUS'),
      [['REDIRECT_STATUS', '201']],
    );
    assert.deepEqual(params.at(-1), ['SCRIPT_FILENAME', '/srv$fastcgi_script_name']);
  });

  test('an unusable ConfigMap: 503, nothing sent to the FastCGI server', () => {
    const root = rootOf(scenario('FCGI', { denied: 'ConfigMap app/params not found' }));
    assert.deepEqual(argsOf(root, 'return'), [['503']]);
    assert.deepEqual(argsOf(root, 'fastcgi_param'), []);
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(
      renderNginxConf(scenario('FCGI', { index: 'index.php', params: [['A', '${document_root}/a']] }), context),
      context,
    );
  });
});

describe('backend-protocol AUTO_HTTP', () => {
  test("proxy_pass with the client's scheme, and the rewrite hook (an HTTPS request cannot reach the no-endpoints server)", () => {
    const root = rootOf(scenario('AUTO_HTTP'));
    assert.deepEqual(argsOf(root, 'proxy_pass'), [['$scheme://upstream_balancer']]);
    assert.ok(root.children?.some((child) => child.name === 'rewrite_by_lua_block'));
    assert.deepEqual(argsOf(root, 'fastcgi_param'), []);
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(renderNginxConf(scenario('AUTO_HTTP'), context), context);
  });
});

test('an HTTP location gets none of it', () => {
  const root = rootOf(scenario('HTTP'));
  assert.deepEqual(argsOf(root, 'proxy_pass'), [['http://upstream_balancer']]);
  assert.deepEqual(argsOf(root, 'fastcgi_param'), []);
  assert.ok(!root.children?.some((child) => child.name === 'rewrite_by_lua_block'));
});

test('http2-push-preload: http2_push_preload on in its locations only', async () => {
  const pushing = scenario('HTTP');
  const [host] = pushing.servers.filter((candidate) => candidate.hostname === 'app.example.com');
  const [root] = host?.locations ?? [];
  assert.ok(host && root);
  const config = {
    ...pushing,
    servers: pushing.servers.map((candidate) =>
      candidate === host
        ? { ...host, locations: [{ ...root, annotations: { ...root.annotations, http2PushPreload: true as const } }] }
        : candidate,
    ),
  };
  assert.deepEqual(argsOf(rootOf(config), 'http2_push_preload'), [['on']]);
  assert.deepEqual(argsOf(rootOf(pushing), 'http2_push_preload'), []);
  if (missingNginx === undefined) await nginxSyntaxCheck(renderNginxConf(config, context), context);
});
