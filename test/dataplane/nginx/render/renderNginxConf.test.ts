import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import {
  createRenderContext,
  DEFAULT_LIVE_STATE_MEMORY,
  DEFAULT_MODULES_DIR,
} from '../../../../src/dataplane/nginx/render/renderContext.js';
import type { Configuration, Endpoint, Server } from '../../../../src/model/types.js';
import {
  backend,
  certificate,
  configuration,
  LUA_DIR,
  location,
  server,
  testContext,
  BALANCER_HOOKS,
  EWMA_BALANCER_HOOKS,
  REWRITE_BALANCER_HOOKS,
} from './fixtures.js';
import { parseNginxConf, tokenizeNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import {
  allDirectives,
  appliedArgs,
  argsOf,
  expectedWords,
  locationOf,
  luaBlocks,
  named,
  only,
  serverNamed,
  servers,
} from './parsedTree.js';
import { logVariables } from './logVariables.js';

const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);

function parsed(config: Configuration, context = testContext()): ParsedDirective[] {
  return parseNginxConf(renderNginxConf(config, context));
}

function hostConfig(hostname: string, locations = [location('/', 'prefix', web.name)], tls = false): Configuration {
  return configuration({ servers: [server('_', []), server(hostname, locations, { tls })], backends: [web] });
}

/** Turns an nginx server_name regex (`~...`) into a JS RegExp (same syntax for what Portico writes). */
function serverNameRegex(serverName: string): RegExp {
  assert.ok(serverName.startsWith('~'), serverName);
  return new RegExp(serverName.slice(1), 'i');
}

describe('main and http', () => {
  test('has no daemon directive and no comments', () => {
    const rendered = renderNginxConf(hostConfig('a.example.com'), testContext());
    assert.equal(allDirectives(parseNginxConf(rendered)).filter((directive) => directive.name === 'daemon').length, 0);
    assert.deepEqual(
      tokenizeNginxConf(rendered).filter((token) => token.type === 'comment'),
      [],
    );
  });

  test('renders what the builder built, word for word', () => {
    const config = hostConfig('a.example.com');
    assert.deepEqual(parsed(config), expectedWords(buildNginxConf(config, testContext())));
  });

  test('main context from settings and context; the Lua modules first', () => {
    const tree = parsed(
      configuration({ settings: { workerProcesses: 4, errorLogLevel: 'warn', maxWorkerConnections: 0 } }),
      createRenderContext('/run/portico', { workerUser: 'www-data', luaDir: LUA_DIR }),
    );
    assert.deepEqual(
      tree.slice(0, 4).map(({ name, args }) => [name, ...args]),
      [
        ['load_module', `${DEFAULT_MODULES_DIR}/ndk_http_module.so`],
        ['load_module', `${DEFAULT_MODULES_DIR}/ngx_http_lua_module.so`],
        // server-tokens off (the default) removes the Server header with headers-more.
        ['load_module', `${DEFAULT_MODULES_DIR}/ngx_http_headers_more_filter_module.so`],
        ['user', 'www-data'],
      ],
    );
    assert.equal(DEFAULT_MODULES_DIR, '/usr/share/nginx/modules');
    assert.deepEqual(only(tree, 'user').args, ['www-data']);
    assert.deepEqual(only(tree, 'worker_processes').args, ['4']);
    assert.equal(tree.filter((node) => node.name === 'pid').length, 0, 'the process manager sets pid on the command line');
    assert.deepEqual(only(tree, 'error_log').args, ['/run/portico/logs/error.log', 'warn']);
    assert.deepEqual(only(tree, 'worker_shutdown_timeout').args, ['240s']);
    const events = only(tree, 'events');
    assert.deepEqual(argsOf(events, 'worker_connections'), [['16384']]);
    assert.deepEqual(argsOf(events, 'multi_accept'), [['on']]);
  });

  test('access log off, escape=json, forwarded headers trusted or not', () => {
    const trusting = only(
      parsed(
        configuration({
          settings: { disableAccessLog: true, logFormatEscapeJson: true, useForwardedHeaders: true },
        }),
      ),
      'http',
    );
    assert.deepEqual(argsOf(trusting, 'access_log'), [['off']]);
    assert.equal(argsOf(trusting, 'log_format')[0]?.[1], 'escape=json');
    const maps = named(trusting.children, 'map').map((map) => map.args);
    assert.ok(maps.some(([source, target]) => source === '$http_x_forwarded_proto' && target === '$pass_access_scheme'));

    const plain = only(parsed(configuration()), 'http');
    const schemeMap = named(plain.children, 'map').find((map) => map.args[1] === '$pass_access_scheme');
    assert.deepEqual(schemeMap?.children, [{ name: 'default', args: ['$scheme'] }]);
  });

  test('the Lua modules: package path, shared dict, and the modules loaded by the master', () => {
    const http = only(
      parsed(
        configuration(),
        createRenderContext('', {
          luaDir: '/opt/portico dir/lua/',
          modulesDir: '/opt/nginx/modules',
          liveStateMemory: '16m',
          ports: { status: 10999 },
        }),
      ),
      'http',
    );
    assert.deepEqual((http.children ?? []).slice(0, 4), [
      { name: 'lua_package_path', args: ['/opt/portico dir/lua/?.lua;;'] },
      { name: 'lua_shared_dict', args: ['portico_configuration', '16m'] },
      { name: 'lua_shared_dict', args: ['portico_balancer_ewma', '10m'] },
      {
        name: 'init_by_lua_block',
        args: [],
        lua: [
          'portico_balancer = require("portico.balancer")',
          'portico_configuration = require("portico.configuration")',
          'portico_certificate = require("portico.certificate")',
          'portico_routes = require("portico.routes")',
          'portico_external_auth = require("portico.external_auth")',
          'portico_authentication = require("portico.authentication")',
          'portico_worker_malloc = require("portico.worker_malloc")',
          'portico_keepalive_drain = require("portico.keepalive_drain")',
          'portico_balancer.init({ status_port = 10999, portico_ports = { 80, 443, 8181, 10999 }, refuse_loopback = false })',
        ],
      },
    ]);
    const tree = parsed(configuration(), createRenderContext('', { luaDir: LUA_DIR, modulesDir: '/opt/nginx/modules' }));
    assert.deepEqual(
      named(tree, 'load_module').map(({ args }) => args),
      [
        ['/opt/nginx/modules/ndk_http_module.so'],
        ['/opt/nginx/modules/ngx_http_lua_module.so'],
        ['/opt/nginx/modules/ngx_http_headers_more_filter_module.so'],
      ],
    );
    assert.deepEqual(argsOf(only(tree, 'http'), 'lua_shared_dict'), [
      ['portico_configuration', DEFAULT_LIVE_STATE_MEMORY],
      ['portico_balancer_ewma', '10m'],
    ]);
    assert.equal(DEFAULT_LIVE_STATE_MEMORY, '64m');
  });

  test('refuses a Lua directory, modules directory or live-state memory nginx or Lua would misread', () => {
    for (const luaDir of ['', 'lua', './lua', '/a/$prefix/lua', '/a;/b', '/a/?', '/a\nb']) {
      assert.throws(
        () => renderNginxConf(configuration(), testContext({ luaDir })),
        /unsupported (file path|Lua module directory)/,
        luaDir,
      );
    }
    assert.throws(() => renderNginxConf(configuration(), testContext({ modulesDir: '/a/*' })), /unsupported file path/);
    for (const liveStateMemory of ['', '64 m', '1m;', '64mb', '-1']) {
      assert.throws(() => renderNginxConf(configuration(), testContext({ liveStateMemory })), /invalid size/, liveStateMemory);
    }
  });

  test('refuses invalid admin settings with a clear error', () => {
    const cases: Array<[Partial<Configuration['settings']>, RegExp]> = [
      [{ logFormatUpstream: 'cost 5$' }, /malformed nginx variable reference/],
      [{ forwardedForHeader: 'X-Forwarded-For: x' }, /invalid header name/],
      [{ sslProtocols: ['TLSv1.2; include /etc/passwd'] }, /unknown ssl-protocols entry/],
      [{ workerShutdownTimeout: '240s; daemon on' }, /invalid time/],
      [{ upstreamKeepaliveTime: '1h }' }, /invalid time/],
      [{ proxyBodySize: '1m;' }, /invalid size/],
      [{ hstsMaxAge: -1 }, /invalid hsts-max-age/],
    ];
    for (const [settings, error] of cases) {
      const proxying = configuration({ settings, servers: [server('_', [location('/', 'prefix', web.name)])], backends: [web] });
      assert.throws(() => renderNginxConf(proxying, testContext()), error);
    }
  });
});

describe('servers', () => {
  test('every server listens on HTTP and HTTPS; the catch-all is the default server, also on 8181', () => {
    const tree = parsed(hostConfig('a.example.com'));
    assert.deepEqual(argsOf(serverNamed(tree, '_'), 'listen'), [
      ['127.0.0.1:80', 'default_server'],
      ['127.0.0.1:443', 'ssl', 'http2', 'default_server'],
    ]);
    assert.deepEqual(argsOf(serverNamed(tree, 'a.example.com'), 'listen'), [['127.0.0.1:80'], ['127.0.0.1:443', 'ssl', 'http2']]);
    const defaultPort = servers(tree).find((block) => argsOf(block, 'listen').some(([address]) => address === '127.0.0.1:8181'));
    assert.deepEqual(defaultPort && argsOf(locationOf(defaultPort, '/'), 'return'), [['404']]);
  });

  test('without listen addresses, binds all of them; without http2, no http2', () => {
    const config = configuration({ servers: [server('_', [])], settings: { useHttp2: false } });
    const tree = parsed(config, createRenderContext('', { ports: { https: 8443 }, luaDir: LUA_DIR }));
    assert.deepEqual(argsOf(serverNamed(tree, '_'), 'listen'), [
      ['80', 'default_server'],
      ['8443', 'ssl', 'default_server'],
    ]);
  });

  test('the status server is on 127.0.0.1 only; the live-state endpoints are on a unix socket only, with their own limits', () => {
    const tree = parsed(
      configuration({ settings: { clientHeaderTimeout: 0, clientBodyTimeout: 0, keepAlive: 0 } }),
      createRenderContext('', { luaDir: LUA_DIR, liveStateMemory: '16m' }),
    );
    const status = servers(tree).find((block) => argsOf(block, 'listen').some(([address]) => address === '127.0.0.1:10246'));
    assert.ok(status);
    assert.deepEqual(argsOf(status, 'listen'), [['127.0.0.1:10246', 'default_server']]);
    assert.deepEqual(argsOf(locationOf(status, '=', '/healthz'), 'return'), [['200']]);
    assert.deepEqual(argsOf(locationOf(status, '=', '/nginx_status'), 'stub_status'), [[]]);
    assert.deepEqual(argsOf(locationOf(status, '/'), 'return'), [['404']]);
    assert.ok(!JSON.stringify(status).includes('/configuration/'), 'no configuration endpoint on a TCP port');
    const configurationServer = servers(tree).find((block) =>
      argsOf(block, 'listen').some(([address]) => address === 'unix:run/controller/configuration.sock'),
    );
    assert.ok(configurationServer);
    assert.deepEqual(argsOf(configurationServer, 'listen'), [['unix:run/controller/configuration.sock']]);
    assert.deepEqual(argsOf(configurationServer, 'client_max_body_size'), [['16m']], 'a push bigger than the dict could not be stored');
    assert.deepEqual(argsOf(configurationServer, 'client_body_buffer_size'), [['16m']]);
    // Its own timeouts: the ConfigMap's "0" (above) would stop every push.
    assert.deepEqual(argsOf(configurationServer, 'client_header_timeout'), [['60s']]);
    assert.deepEqual(argsOf(configurationServer, 'client_body_timeout'), [['60s']]);
    assert.deepEqual(argsOf(configurationServer, 'keepalive_timeout'), [['60s']]);
    assert.deepEqual(luaBlocks([locationOf(configurationServer, '=', '/configuration/backends')]), [
      ['content_by_lua_block', 'portico_configuration.handle_backends()'],
    ]);
    assert.deepEqual(luaBlocks([locationOf(configurationServer, '=', '/configuration/certificates')]), [
      ['content_by_lua_block', 'portico_configuration.handle_certificates()'],
    ]);
    assert.deepEqual(luaBlocks([locationOf(configurationServer, '=', '/is-dynamic-lb-initialized')]), [
      ['content_by_lua_block', 'portico_configuration.handle_initialized()'],
    ]);
    assert.deepEqual(argsOf(locationOf(configurationServer, '/'), 'return'), [['404']]);
    const withAll = parsed(
      configuration(),
      createRenderContext('', {
        luaDir: LUA_DIR,
        monitor: { port: 41234, token: 1, maxBatchSize: 10 },
        selfEndpoints: { porticoPorts: [10254, 8443], refuseLoopback: true },
      }),
    );
    const init = luaBlocks(only(withAll, 'http').children ?? []).find(([name]) => name === 'init_by_lua_block');
    assert.ok(
      init?.includes(
        'portico_balancer.init({ status_port = 10246, portico_ports = { 80, 443, 8181, 8443, 10246, 10254, 41234 }, refuse_loopback = true })',
      ),
      JSON.stringify(init),
    );
  });

  test('a wildcard host matches exactly one label', () => {
    const [serverName] = argsOf(serverNamed(parsed(hostConfig('*.example.com')), '~^[^.]+\\.example\\.com$'), 'server_name')[0] ?? [];
    const regex = serverNameRegex(serverName ?? '');
    assert.ok(regex.test('foo.example.com'));
    assert.ok(regex.test('FOO.Example.com'));
    assert.ok(!regex.test('bar.foo.example.com'));
    assert.ok(!regex.test('example.com'));
    assert.ok(!regex.test('fooxexample.com'));
  });

  test('a host that is not a plain DNS name is matched exactly through an escaped regex', () => {
    for (const hostname of ['~.*', '.example.com', 'www.example.*', '$hostname', 'a..b', 'a(b)[c]{2}|d+?^$\\']) {
      const tree = parsed(hostConfig(hostname));
      const names = servers(tree).flatMap((block) => argsOf(block, 'server_name').map(([name]) => name ?? ''));
      const regexName = names.find((name) => name.startsWith('~'));
      assert.ok(regexName, `${hostname} → ${JSON.stringify(names)}`);
      const regex = serverNameRegex(regexName);
      assert.ok(regex.test(hostname), hostname);
      assert.ok(!regex.test(`x${hostname}`) && !regex.test(`${hostname}x`), hostname);
    }
  });

  test('certificates: only the default server and a server with TLS directives of its own have a TLS context; Lua picks the pushed one by SNI', () => {
    const config = configuration({
      servers: [
        server('_', []),
        server('a.example.com', [], { tls: true, certificate: 'a-1' }),
        server('b.example.com', [], { tls: true }),
        {
          ...server('c.example.com', [], { tls: true }),
          tlsCiphers: { ciphers: { list: 'ECDHE-RSA-AES128-GCM-SHA256', ingress: { namespace: 'default', name: 'c' } } },
        },
      ],
      certificates: [certificate('a-1', ['a.example.com'])],
      defaultCertificate: 'a-1',
    });
    const tree = parsed(config, testContext({ paths: { fakeCertificate: '/etc/portico/fake.pem' } }));
    const hooks = (hostname: string) => luaBlocks([serverNamed(tree, hostname)]).filter(([name]) => name?.startsWith('ssl_') === true);
    for (const hostname of ['_', 'c.example.com']) {
      const block = serverNamed(tree, hostname);
      assert.deepEqual(argsOf(block, 'ssl_certificate'), [['/etc/portico/fake.pem']], hostname);
      assert.deepEqual(argsOf(block, 'ssl_certificate_key'), [['/etc/portico/fake.pem']], hostname);
    }
    // The default server sets the certificate from the ClientHello, before SNI selects a server.
    assert.deepEqual(hooks('_'), [['ssl_client_hello_by_lua_block', 'portico_certificate.client_hello()']]);
    // Selecting a server with a context of its own swaps it in: its own hook sets the certificate again.
    assert.deepEqual(hooks('c.example.com'), [['ssl_certificate_by_lua_block', 'portico_certificate.call()']]);
    for (const hostname of ['a.example.com', 'b.example.com']) {
      const block = serverNamed(tree, hostname);
      assert.deepEqual(argsOf(block, 'ssl_certificate'), [], hostname);
      assert.deepEqual(hooks(hostname), [], hostname);
    }
    // An id no Certificate has is the Lua module's business (it keeps the fallback), not a render error.
    assert.doesNotThrow(() => renderNginxConf({ ...config, certificates: [] }, testContext()));
  });

  test('HSTS only on TLS hosts, and only over HTTPS (an empty map value adds no header)', () => {
    const tree = parsed(configuration({ servers: [server('_', []), server('a.example.com', [], { tls: true })] }));
    assert.deepEqual(argsOf(serverNamed(tree, 'a.example.com'), 'add_header'), [['Strict-Transport-Security', '$hsts_header', 'always']]);
    assert.deepEqual(argsOf(serverNamed(tree, '_'), 'add_header'), []);
    const hstsMap = named(only(tree, 'http').children, 'map').find((map) => map.args[1] === '$hsts_header');
    assert.deepEqual(hstsMap?.children, [
      { name: 'on', args: ['max-age=31536000; includeSubDomains'] },
      { name: 'default', args: [''] },
    ]);
    const off = parsed(configuration({ servers: [server('a.example.com', [], { tls: true })], settings: { hsts: false } }));
    assert.deepEqual(argsOf(serverNamed(off, 'a.example.com'), 'add_header'), []);
  });

  test('refuses a second catch-all server and duplicate backend names', () => {
    assert.throws(() => renderNginxConf(configuration({ servers: [server('_', []), server('_', [])] }), testContext()), /catch-all/);
    assert.throws(() => renderNginxConf(configuration({ backends: [web, web] }), testContext()), /duplicate backend name/);
  });
});

describe('locations', () => {
  test('prefix /p is = /p plus /p/, unless an exact /p exists; / stays /', () => {
    const config = hostConfig('a.example.com', [
      location('/a', 'prefix', web.name),
      location('/b/', 'prefix', web.name),
      location('/c', 'exact', web.name),
      location('/c', 'prefix', web.name),
      location('/', 'prefix', web.name),
    ]);
    const host = serverNamed(parsed(config), 'a.example.com');
    assert.deepEqual(argsOf(host, 'location'), [['=', '/a'], ['/a/'], ['=', '/b'], ['/b/'], ['=', '/c'], ['/c/'], ['/']]);
  });

  test('regex paths are anchored, case-insensitive, match-limited, and rewritten with their captures', () => {
    const config = hostConfig('a.example.com', [
      location('/api(/|$)(.*)', 'regex', web.name, { annotations: { rewrite: { target: '/$2?from=$host' } } }),
      location('/', 'regex', web.name),
    ]);
    const host = serverNamed(parsed(config), 'a.example.com');
    const limit = '(*LIMIT_MATCH=100000)';
    assert.deepEqual(argsOf(host, 'location'), [
      ['~*', `${limit}^/api(/|$)(.*)`],
      ['~*', `${limit}^/`],
    ]);
    assert.deepEqual(argsOf(locationOf(host, '~*', `${limit}^/api(/|$)(.*)`), 'rewrite'), [
      [`${limit}(?i)^/api(/|$)(.*)`, '/$2?from=${dollar}host', 'break'],
    ]);
  });

  test('a prefix or exact rewrite matches the literal path', () => {
    const config = hostConfig('a.example.com', [
      location('/v1.0', 'prefix', web.name, { annotations: { rewrite: { target: '/' } } }),
      location('/x+y', 'exact', web.name, { annotations: { rewrite: { target: '/z' } } }),
      location('/', 'prefix', web.name),
    ]);
    const host = serverNamed(parsed(config), 'a.example.com');
    assert.deepEqual(argsOf(locationOf(host, '/v1.0/'), 'rewrite'), [['^/v1\\.0', '/', 'break']]);
    assert.deepEqual(argsOf(locationOf(host, '=', '/x+y'), 'rewrite'), [['^/x\\+y$', '/z', 'break']]);
  });

  test('a server without a location for every path is refused, never left to nginx static files', () => {
    const bare: Server = { hostname: 'a.example.com', certificate: undefined, tls: false, locations: [location('/a', 'exact', web.name)] };
    assert.throws(() => renderNginxConf(configuration({ servers: [bare] }), testContext()), /no location for every path/);
  });

  test('404 without a backend; an unknown backend or one without endpoints goes to Lua (its 503) like any other', () => {
    const config = configuration({
      servers: [
        server('a.example.com', [
          location('/none', 'exact', undefined),
          location('/unknown', 'exact', 'default-unknown-80'),
          location('/empty', 'exact', 'default-empty-80'),
          location('/full', 'exact', web.name),
        ]),
      ],
      backends: [backend('default-empty-80', [], { name: 'empty', port: 8080 }), web],
    });
    const host = serverNamed(parsed(config), 'a.example.com');
    const none = locationOf(host, '=', '/none');
    assert.deepEqual(argsOf(none, 'return'), [['404']]);
    assert.deepEqual(luaBlocks([none]), []);
    assert.deepEqual(argsOf(none, 'proxy_pass'), []);
    const bodyOf = (path: string): ParsedDirective[] =>
      (locationOf(host, '=', path).children ?? []).filter((directive) => directive.name !== 'set');
    assert.deepEqual(bodyOf('/unknown'), bodyOf('/full'));
    assert.deepEqual(bodyOf('/empty'), bodyOf('/full'));
    assert.deepEqual(argsOf(locationOf(host, '=', '/unknown'), 'return'), []);
    // The log variables still name the Service of a known backend (structure, not endpoints).
    const serviceOf = (path: string): string[] => {
      const variables = logVariables(locationOf(host, '=', path));
      return [variables.$proxy_upstream_name ?? '', variables.$service_name ?? '', variables.$service_port ?? ''];
    };
    assert.deepEqual(serviceOf('/unknown'), ['default-unknown-80', '', '']);
    assert.deepEqual(serviceOf('/empty'), ['default-empty-80', 'empty', '8080']);
  });

  test('a proxied location: $proxy_upstream_name, redirect, rewrite, then the Lua balancer; the retries from the http block', () => {
    const config = hostConfig('a.example.com', [location('/', 'prefix', web.name, { annotations: { rewrite: { target: '/x' } } })], true);
    const tree = parsed(config);
    const root = locationOf(serverNamed(tree, 'a.example.com'), '/');
    const order = (root.children ?? [])
      .map((directive) => directive.name)
      .filter((name) => ['set', 'if', 'rewrite', 'proxy_pass'].includes(name));
    assert.deepEqual([...new Set(order)], ['set', 'if', 'rewrite', 'proxy_pass']);
    assert.deepEqual(luaBlocks([root]), BALANCER_HOOKS);
    assert.deepEqual(appliedArgs(tree, root, 'proxy_next_upstream'), [['error', 'timeout']]);
    assert.deepEqual(appliedArgs(tree, root, 'proxy_next_upstream_tries'), [['3']]);
  });

  test("the log hook only where ewma can be reached: the backend's own algorithm or its canary's, unless hashing or affinity chooses", () => {
    const ewma = (named: ReturnType<typeof backend>): ReturnType<typeof backend> => ({
      ...named,
      balancing: { ...named.balancing, algorithm: 'ewma' },
    });
    const roundRobin = backend('default-rr-80', []);
    const fast = ewma(backend('default-fast-80', []));
    const canaryOfRoundRobin = ewma(backend('default-canary-80', []));
    const withCanary = {
      ...backend('default-primary-80', []),
      canary: {
        backend: canaryOfRoundRobin.name,
        weight: 10,
        weightTotal: 100,
        header: undefined,
        headerValue: undefined,
        headerPattern: undefined,
        cookie: undefined,
        affinityBehavior: 'sticky' as const,
      },
    };
    // ewma in name only: the hash chooses the endpoint.
    const hashed = ewma(backend('default-hashed-80', []));
    const hashedEwma = { ...hashed, balancing: { ...hashed.balancing, hashBy: { key: '$remote_addr', subset: false, subsetSize: 3 } } };
    const config = configuration({
      servers: [
        server('_', []),
        server('a.example.com', [
          location('/', 'prefix', roundRobin.name),
          location('/fast', 'exact', fast.name),
          location('/primary', 'exact', withCanary.name),
          location('/unknown', 'exact', 'default-unknown-80'),
          location('/hashed', 'exact', hashedEwma.name),
        ]),
      ],
      backends: [roundRobin, fast, canaryOfRoundRobin, withCanary, hashedEwma],
    });
    const host = serverNamed(parsed(config), 'a.example.com');
    assert.deepEqual(luaBlocks([locationOf(host, '/')]), BALANCER_HOOKS);
    assert.deepEqual(luaBlocks([locationOf(host, '=', '/fast')]), EWMA_BALANCER_HOOKS);
    assert.deepEqual(luaBlocks([locationOf(host, '=', '/primary')]), EWMA_BALANCER_HOOKS);
    assert.deepEqual(luaBlocks([locationOf(host, '=', '/unknown')]), BALANCER_HOOKS);
    assert.deepEqual(luaBlocks([locationOf(host, '=', '/hashed')]), BALANCER_HOOKS);
  });

  test('proxies with Portico headers, HTTP/1.1 and no URI part; gRPC uses grpc_*', () => {
    const config = hostConfig('a.example.com', [
      location('/', 'prefix', web.name),
      location('/grpc', 'exact', web.name, { annotations: { backendProtocol: 'GRPCS', proxy: { connectTimeout: 7 } } }),
    ]);
    const tree = parsed(config);
    const host = serverNamed(tree, 'a.example.com');
    const root = locationOf(host, '/');
    assert.deepEqual(argsOf(root, 'proxy_pass'), [['http://upstream_balancer']]);
    assert.deepEqual(appliedArgs(tree, root, 'proxy_http_version'), [['1.1']]);
    assert.deepEqual(Object.fromEntries(appliedArgs(tree, root, 'proxy_set_header').map(([name, value]) => [name, value])), {
      Host: '$best_http_host',
      'X-Request-ID': '$req_id',
      'X-Real-IP': '$remote_addr',
      'X-Forwarded-For': '$remote_addr',
      'X-Forwarded-Host': '$best_http_host',
      'X-Forwarded-Port': '$pass_server_port',
      'X-Forwarded-Proto': '$pass_access_scheme',
      'X-Forwarded-Scheme': '$pass_access_scheme',
      'X-Scheme': '$pass_access_scheme',
      'X-Original-Forwarded-For': '$http_x_forwarded_for',
      'X-Original-Forwarded-Host': '$http_x_forwarded_host',
      Proxy: '',
      Connection: '$connection_upgrade',
      Upgrade: '$http_upgrade',
    });
    const grpc = locationOf(host, '=', '/grpc');
    assert.deepEqual(argsOf(grpc, 'grpc_pass'), [['grpcs://upstream_balancer']]);
    assert.deepEqual(argsOf(grpc, 'grpc_connect_timeout'), [['7s']]);
    assert.deepEqual(argsOf(grpc, 'grpc_next_upstream'), [['error', 'timeout']]);
    assert.deepEqual(argsOf(grpc, 'grpc_next_upstream_tries'), [['3']]);
    assert.deepEqual(luaBlocks([grpc]), REWRITE_BALANCER_HOOKS);
    assert.deepEqual(argsOf(grpc, 'proxy_pass'), []);
    assert.deepEqual(argsOf(grpc, 'proxy_next_upstream'), []);
    assert.ok(argsOf(grpc, 'grpc_set_header').every(([name]) => name !== 'Connection' && name !== 'Upgrade'));
  });

  test('the rewrite hook only where the upstream is TLS or gRPC; the no-endpoints server answers 503 for plain HTTP', () => {
    const config = hostConfig('a.example.com', [
      location('/', 'prefix', web.name),
      location('/tls', 'exact', web.name, { annotations: { backendProtocol: 'HTTPS' } }),
      location('/grpc', 'exact', web.name, { annotations: { backendProtocol: 'GRPC' } }),
    ]);
    const tree = parsed(config);
    const host = serverNamed(tree, 'a.example.com');
    assert.deepEqual(luaBlocks([locationOf(host, '/')]), BALANCER_HOOKS);
    assert.deepEqual(luaBlocks([locationOf(host, '=', '/tls')]), REWRITE_BALANCER_HOOKS);
    assert.deepEqual(luaBlocks([locationOf(host, '=', '/grpc')]), REWRITE_BALANCER_HOOKS);

    const http = only(tree, 'http').children ?? [];
    const peer = named(http, 'map').find((map) => map.args[1] === '$portico_no_endpoints_peer');
    assert.deepEqual(peer?.args, ['', '$portico_no_endpoints_peer']);
    assert.deepEqual(argsOf(peer, 'default'), [['unix:run/no-endpoints.sock']]);
    const noEndpoints = named(http, 'server').filter((block) =>
      argsOf(block, 'listen').some(([address]) => address === 'unix:run/no-endpoints.sock'),
    );
    assert.equal(noEndpoints.length, 1);
    assert.deepEqual(argsOf(locationOf(noEndpoints[0]!, '/'), 'return'), [['503']]);
  });

  test('compute-full-forwarded-for (with use-forwarded-headers) sends the chain as X-Forwarded-For, whatever forwarded-for-header', () => {
    const config = configuration({
      servers: [server('a.example.com', [location('/', 'prefix', web.name)])],
      backends: [web],
      settings: { computeFullForwardedFor: true, useForwardedHeaders: true, forwardedForHeader: 'X-Client-Chain' },
    });
    const tree = parsed(config);
    const root = locationOf(serverNamed(tree, 'a.example.com'), '/');
    const sent = appliedArgs(tree, root, 'proxy_set_header');
    assert.ok(
      sent.some(([name, value]) => name === 'X-Forwarded-For' && value === '$full_x_forwarded_for'),
      'X-Forwarded-For is the chain',
    );
  });

  test('HTTPS redirect: TLS host with ssl-redirect, or forced; not for no-tls-redirect locations', () => {
    const redirectIf = (block: ParsedDirective): ParsedDirective[] => named(block.children, 'if');
    const tls = serverNamed(
      parsed(
        hostConfig(
          'a.example.com',
          [
            location('/', 'prefix', web.name),
            location('/.well-known/acme-challenge/abc', 'exact', web.name),
            location('/off', 'exact', web.name, { annotations: { rewrite: { sslRedirect: false } } }),
          ],
          true,
        ),
      ),
      'a.example.com',
    );
    assert.deepEqual(redirectIf(locationOf(tls, '/')), [
      {
        name: 'if',
        args: ['($pass_access_scheme', '=', 'http)'],
        children: [{ name: 'return', args: ['308', 'https://$redirect_host$redirect_request_uri'] }],
      },
    ]);
    assert.deepEqual(redirectIf(locationOf(tls, '=', '/.well-known/acme-challenge/abc')), []);
    assert.deepEqual(redirectIf(locationOf(tls, '=', '/off')), []);

    const plain = serverNamed(
      parsed(
        hostConfig('b.example.com', [
          location('/', 'prefix', web.name),
          location('/forced', 'exact', web.name, { annotations: { rewrite: { forceSslRedirect: true } } }),
        ]),
        testContext({ ports: { https: 8443 } }),
      ),
      'b.example.com',
    );
    assert.deepEqual(redirectIf(locationOf(plain, '/')), []);
    assert.deepEqual(argsOf(redirectIf(locationOf(plain, '=', '/forced'))[0] ?? { name: '', args: [] }, 'return'), [
      ['308', 'https://$redirect_host$redirect_request_uri'],
    ]);
  });

  test('denies first, then allows and denies the rest', () => {
    const root = locationOf(
      serverNamed(
        parsed(
          hostConfig('a.example.com', [
            location('/', 'prefix', web.name, { annotations: { ipAccess: { allow: ['10.0.0.0/8', 'fd00::/8'], deny: ['10.1.0.0/16'] } } }),
          ]),
        ),
        'a.example.com',
      ),
      '/',
    );
    const access = (root.children ?? []).filter((directive) => directive.name === 'allow' || directive.name === 'deny');
    assert.deepEqual(
      access.map(({ name, args }) => [name, ...args]),
      [
        ['deny', '10.1.0.0/16'],
        ['allow', '10.0.0.0/8'],
        ['allow', 'fd00::/8'],
        ['deny', 'all'],
      ],
    );
  });

  test('one upstream: a placeholder server, the Lua balancer, then keep-alive unless disabled', () => {
    const two = backend('b-1', [
      { address: '10.0.0.1', port: 80 },
      { address: '2001:db8::1', port: 8080 },
    ]);
    const upstream = only(only(parsed(configuration({ backends: [two, web] })), 'http').children, 'upstream');
    assert.deepEqual(upstream, {
      name: 'upstream',
      args: ['upstream_balancer'],
      children: [
        { name: 'server', args: ['0.0.0.1'] },
        { name: 'balancer_by_lua_block', args: [], lua: ['portico_balancer.balance()'] },
        { name: 'keepalive', args: ['320'] },
        { name: 'keepalive_time', args: ['1h'] },
        { name: 'keepalive_timeout', args: ['60s'] },
        { name: 'keepalive_requests', args: ['10000'] },
      ],
    });
    const noPool = only(
      only(parsed(configuration({ backends: [two], settings: { upstreamKeepaliveConnections: 0 } })), 'http').children,
      'upstream',
    );
    assert.deepEqual(
      (noPool.children ?? []).map((directive) => directive.name),
      ['server', 'balancer_by_lua_block'],
    );
  });
});

describe('structure only: endpoints and certificates are live state', () => {
  const endpoints = (count: number): Endpoint[] =>
    Array.from({ length: count }, (_, index) => ({ address: `10.1.0.${index + 1}`, port: 8080 + index }));

  /** One structure; `variant` picks the endpoints and certificates. */
  function liveVariant(variant: 'a' | 'b'): Configuration {
    const a = variant === 'a';
    const api = { ...backend('default-api-80', endpoints(a ? 1 : 10), { name: 'api' }) };
    // Not the algorithm: a switch to or from ewma adds or drops the log hook (tested above).
    if (!a) api.balancing = { ...api.balancing, hashBy: { key: '$request_uri', subset: true, subsetSize: 2 } };
    const drained = backend('default-drained-80', a ? [] : [{ address: 'fd00::1', port: 80 }], { name: 'drained' });
    const own = a ? 'a-own-1' : 'b-own-2';
    const fallback = a ? 'a-default-1' : 'b-default-2';
    return configuration({
      servers: [
        server('_', [location('/', 'prefix', api.name, { ingress: undefined })]),
        server('app.example.com', [location('/api', 'prefix', api.name), location('/drained', 'exact', drained.name)], {
          tls: true,
          certificate: own,
        }),
        server('*.example.com', [location('/', 'prefix', api.name)], { tls: true, certificate: a ? own : undefined }),
      ],
      backends: [api, drained],
      certificates: [
        {
          ...certificate(own, ['app.example.com', '*.example.com']),
          certificatePem: `-----BEGIN CERTIFICATE-----\n${variant}`,
          keyPem: `key ${variant}`,
        },
        { ...certificate(fallback, ['default.example.com']), notAfter: a ? '2030-01-01T00:00:00Z' : '2031-01-01T00:00:00Z' },
      ],
      defaultCertificate: a ? fallback : undefined,
    });
  }

  test('two configurations that differ in endpoints (1 vs 10), balancing and certificates (ids, PEMs, default) render byte-identical text', () => {
    const [a, b] = [liveVariant('a'), liveVariant('b')];
    assert.notDeepEqual(a.backends, b.backends);
    assert.notDeepEqual(a.certificates, b.certificates);
    assert.equal(renderNginxConf(a, testContext()), renderNginxConf(b, testContext()));
  });

  test('no endpoint address and no certificate id appears in the text', () => {
    const rendered = renderNginxConf(liveVariant('b'), testContext());
    for (const absent of ['10.1.0.', 'fd00::1', 'b-own-2', 'b-default-2', 'BEGIN CERTIFICATE', 'certificates/']) {
      assert.ok(!rendered.includes(absent), absent);
    }
  });
});
