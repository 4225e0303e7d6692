import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { createRenderContext } from '../../../../src/dataplane/nginx/render/renderContext.js';
import type { Configuration, Server } from '../../../../src/model/types.js';
import { backend, certificate, configuration, location, server, testContext } from './fixtures.js';
import { parseNginxConf, tokenizeNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, expectedWords, locationOf, named, only, serverNamed, servers } from './parsedTree.js';

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
    assert.deepEqual(tokenizeNginxConf(rendered).filter((token) => token.type === 'comment'), []);
  });

  test('renders what the builder built, word for word', () => {
    const config = hostConfig('a.example.com');
    assert.deepEqual(parsed(config), expectedWords(buildNginxConf(config, testContext())));
  });

  test('main context from settings and context', () => {
    const tree = parsed(configuration({ settings: { workerProcesses: 4, errorLogLevel: 'warn', maxWorkerConnections: 0 } }),
      createRenderContext('/run/portico', { workerUser: 'www-data' }));
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
    const trusting = only(parsed(configuration({
      settings: { disableAccessLog: true, logFormatEscapeJson: true, useForwardedHeaders: true },
    })), 'http');
    assert.deepEqual(argsOf(trusting, 'access_log'), [['off']]);
    assert.equal(argsOf(trusting, 'log_format')[0]?.[1], 'escape=json');
    const maps = named(trusting.children, 'map').map((map) => map.args);
    assert.ok(maps.some(([source, target]) => source === '$http_x_forwarded_proto' && target === '$pass_access_scheme'));

    const plain = only(parsed(configuration()), 'http');
    const schemeMap = named(plain.children, 'map').find((map) => map.args[1] === '$pass_access_scheme');
    assert.deepEqual(schemeMap?.children, [{ name: 'default', args: ['$scheme'] }]);
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
    assert.deepEqual(argsOf(serverNamed(tree, '_'), 'listen'), [['127.0.0.1:80', 'default_server'], ['127.0.0.1:443', 'ssl', 'http2', 'default_server']]);
    assert.deepEqual(argsOf(serverNamed(tree, 'a.example.com'), 'listen'), [['127.0.0.1:80'], ['127.0.0.1:443', 'ssl', 'http2']]);
    const defaultPort = servers(tree).find((block) => argsOf(block, 'listen').some(([address]) => address === '127.0.0.1:8181'));
    assert.deepEqual(defaultPort && argsOf(locationOf(defaultPort, '/'), 'return'), [['404']]);
  });

  test('without listen addresses, binds all of them; without http2, no http2', () => {
    const config = configuration({ servers: [server('_', [])], settings: { useHttp2: false } });
    const tree = parsed(config, createRenderContext('', { ports: { https: 8443 } }));
    assert.deepEqual(argsOf(serverNamed(tree, '_'), 'listen'), [['80', 'default_server'], ['8443', 'ssl', 'default_server']]);
  });

  test('the status server is on 127.0.0.1 only', () => {
    const tree = parsed(configuration(), createRenderContext(''));
    const status = servers(tree).find((block) => argsOf(block, 'listen').some(([address]) => address === '127.0.0.1:10246'));
    assert.ok(status);
    assert.deepEqual(argsOf(locationOf(status, '=', '/healthz'), 'return'), [['200']]);
    assert.deepEqual(argsOf(locationOf(status, '=', '/nginx_status'), 'stub_status'), [[]]);
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

  test('certificates: own, default, fake; an unknown id is refused', () => {
    const config = configuration({
      servers: [server('_', []), server('a.example.com', [], { tls: true, certificate: 'a-1' }), server('b.example.com', [], { tls: true })],
      certificates: [certificate('a-1', ['a.example.com'])],
    });
    const tree = parsed(config);
    assert.deepEqual(argsOf(serverNamed(tree, 'a.example.com'), 'ssl_certificate'), [['certificates/a-1.pem']]);
    assert.deepEqual(argsOf(serverNamed(tree, 'a.example.com'), 'ssl_certificate_key'), [['certificates/a-1.pem']]);
    assert.deepEqual(argsOf(serverNamed(tree, 'b.example.com'), 'ssl_certificate'), [['fake-certificate.pem']]);
    const withDefault = parsed({ ...config, defaultCertificate: 'a-1' });
    assert.deepEqual(argsOf(serverNamed(withDefault, 'b.example.com'), 'ssl_certificate'), [['certificates/a-1.pem']]);
    assert.throws(() => renderNginxConf({ ...config, certificates: [] }, testContext()), /unknown certificate "a-1"/);
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

  test('regex paths are anchored, case-insensitive, and rewritten with their captures', () => {
    const config = hostConfig('a.example.com', [
      location('/api(/|$)(.*)', 'regex', web.name, { annotations: { rewrite: { target: '/$2?from=$host' } } }),
      location('/', 'regex', web.name),
    ]);
    const host = serverNamed(parsed(config), 'a.example.com');
    assert.deepEqual(argsOf(host, 'location'), [['~*', '^/api(/|$)(.*)'], ['~*', '^/']]);
    assert.deepEqual(argsOf(locationOf(host, '~*', '^/api(/|$)(.*)'), 'rewrite'), [['(?i)^/api(/|$)(.*)', '/$2?from=${dollar}host', 'break']]);
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

  test('404 without a backend; 503 for an unknown backend or one without endpoints', () => {
    const config = configuration({
      servers: [server('a.example.com', [
        location('/none', 'exact', undefined),
        location('/unknown', 'exact', 'default-unknown-80'),
        location('/empty', 'exact', 'default-empty-80'),
      ])],
      backends: [backend('default-empty-80', [])],
    });
    const tree = parsed(config);
    const host = serverNamed(tree, 'a.example.com');
    assert.deepEqual(argsOf(locationOf(host, '=', '/none'), 'return'), [['404']]);
    assert.deepEqual(argsOf(locationOf(host, '=', '/unknown'), 'return'), [['503']]);
    assert.deepEqual(argsOf(locationOf(host, '=', '/empty'), 'return'), [['503']]);
    assert.deepEqual(named(only(tree, 'http').children, 'upstream'), [], 'no upstream without endpoints');
  });

  test('proxies with Portico headers, HTTP/1.1 and no URI part; gRPC uses grpc_*', () => {
    const config = hostConfig('a.example.com', [
      location('/', 'prefix', web.name),
      location('/grpc', 'exact', web.name, { annotations: { backendProtocol: 'GRPCS', proxy: { connectTimeout: 7 } } }),
    ]);
    const host = serverNamed(parsed(config), 'a.example.com');
    const root = locationOf(host, '/');
    assert.deepEqual(argsOf(root, 'proxy_pass'), [['http://default-web-80']]);
    assert.deepEqual(argsOf(root, 'proxy_http_version'), [['1.1']]);
    assert.deepEqual(Object.fromEntries(argsOf(root, 'proxy_set_header').map(([name, value]) => [name, value])), {
      Host: '$best_http_host',
      'X-Request-ID': '$req_id',
      'X-Real-IP': '$remote_addr',
      'X-Forwarded-For': '$remote_addr',
      'X-Forwarded-Host': '$best_http_host',
      'X-Forwarded-Port': '$pass_server_port',
      'X-Forwarded-Proto': '$pass_access_scheme',
      'X-Scheme': '$pass_access_scheme',
      Proxy: '',
      Connection: '$connection_upgrade',
      Upgrade: '$http_upgrade',
    });
    const grpc = locationOf(host, '=', '/grpc');
    assert.deepEqual(argsOf(grpc, 'grpc_pass'), [['grpcs://default-web-80']]);
    assert.deepEqual(argsOf(grpc, 'grpc_connect_timeout'), [['7s']]);
    assert.deepEqual(argsOf(grpc, 'proxy_pass'), []);
    assert.ok(argsOf(grpc, 'grpc_set_header').every(([name]) => name !== 'Connection' && name !== 'Upgrade'));
  });

  test('compute-full-forwarded-for appends to the named header', () => {
    const config = configuration({
      servers: [server('a.example.com', [location('/', 'prefix', web.name)])],
      backends: [web],
      settings: { computeFullForwardedFor: true, forwardedForHeader: 'X-Client-Chain' },
    });
    const root = locationOf(serverNamed(parsed(config), 'a.example.com'), '/');
    assert.ok(argsOf(root, 'proxy_set_header').some(([name, value]) => name === 'X-Client-Chain' && value === '$proxy_add_x_forwarded_for'));
  });

  test('HTTPS redirect: TLS host with ssl-redirect, or forced; not for no-tls-redirect locations', () => {
    const redirectIf = (block: ParsedDirective): ParsedDirective[] => named(block.children, 'if');
    const tls = serverNamed(parsed(hostConfig('a.example.com', [
      location('/', 'prefix', web.name),
      location('/.well-known/acme-challenge/abc', 'exact', web.name),
      location('/off', 'exact', web.name, { annotations: { rewrite: { sslRedirect: false } } }),
    ], true)), 'a.example.com');
    assert.deepEqual(redirectIf(locationOf(tls, '/')), [{
      name: 'if',
      args: ['($pass_access_scheme', '=', 'http)'],
      children: [{ name: 'return', args: ['308', 'https://$redirect_host$request_uri'] }],
    }]);
    assert.deepEqual(redirectIf(locationOf(tls, '=', '/.well-known/acme-challenge/abc')), []);
    assert.deepEqual(redirectIf(locationOf(tls, '=', '/off')), []);

    const plain = serverNamed(parsed(hostConfig('b.example.com', [
      location('/', 'prefix', web.name),
      location('/forced', 'exact', web.name, { annotations: { rewrite: { forceSslRedirect: true } } }),
    ]), createRenderContext('', { ports: { https: 8443 } })), 'b.example.com');
    assert.deepEqual(redirectIf(locationOf(plain, '/')), []);
    assert.deepEqual(argsOf(redirectIf(locationOf(plain, '=', '/forced'))[0] ?? { name: '', args: [] }, 'return'),
      [['308', 'https://$redirect_host:8443$request_uri']]);
  });

  test('denies first, then allows and denies the rest', () => {
    const root = locationOf(serverNamed(parsed(hostConfig('a.example.com', [
      location('/', 'prefix', web.name, { annotations: { ipAccess: { allow: ['10.0.0.0/8', 'fd00::/8'], deny: ['10.1.0.0/16'] } } }),
    ])), 'a.example.com'), '/');
    const access = (root.children ?? []).filter((directive) => directive.name === 'allow' || directive.name === 'deny');
    assert.deepEqual(access.map(({ name, args }) => [name, ...args]), [
      ['deny', '10.1.0.0/16'], ['allow', '10.0.0.0/8'], ['allow', 'fd00::/8'], ['deny', 'all'],
    ]);
  });

  test('upstreams: endpoints with max_fails=0, keep-alive unless disabled', () => {
    const two = backend('b-1', [{ address: '10.0.0.1', port: 80 }, { address: '2001:db8::1', port: 8080 }]);
    const upstream = only(only(parsed(configuration({ backends: [two] })), 'http').children, 'upstream');
    assert.deepEqual(upstream.args, ['b-1']);
    assert.deepEqual(argsOf(upstream, 'server'), [['10.0.0.1:80', 'max_fails=0'], ['[2001:db8::1]:8080', 'max_fails=0']]);
    assert.deepEqual(argsOf(upstream, 'keepalive'), [['320']]);
    const noPool = only(only(parsed(configuration({ backends: [two], settings: { upstreamKeepaliveConnections: 0 } })), 'http').children, 'upstream');
    assert.deepEqual((noPool.children ?? []).map((directive) => directive.name), ['server', 'server']);
  });
});
