import assert from 'node:assert/strict';
import { test } from 'node:test';
import { literal, raw, text, type Argument } from '../../../../src/dataplane/nginx/render/arguments.js';
import { ConfigBuilder, serializeConfig, serializeTracedConfig } from '../../../../src/dataplane/nginx/render/configBuilder.js';
import { LuaCall, luaBind, luaCall } from '../../../../src/dataplane/nginx/render/luaCall.js';
import { parseNginxConf } from './nginxConfTokenizer.js';

test('serializes directives, blocks and map entries with indentation, one per line', () => {
  const root = new ConfigBuilder();
  root.directive('worker_processes', raw.keyword('auto'));
  root.block('http', [], (http) => {
    http.block('map', [raw.variable('$http_upgrade'), raw.variable('$connection_upgrade')], (map) => {
      map.entry(raw.keyword('default'), raw.keyword('upgrade'));
      map.entry(literal(''), raw.keyword('close'));
    });
    http.block('server', [], (server) => {
      server.directive('server_name', literal('example.com'));
      server.block('location', [raw.keyword('='), literal('/a')], (location) => {
        location.directive('return', raw.integer(204));
      });
    });
  });
  assert.equal(
    serializeConfig(root.nodes),
    [
      'worker_processes auto;',
      '',
      'http {',
      ' map $http_upgrade $connection_upgrade {',
      '  default upgrade;',
      '  "" close;',
      ' }',
      '',
      ' server {',
      '  server_name "example.com";',
      '',
      '  location = "/a" {',
      '   return 204;',
      '  }',
      ' }',
      '}',
      '',
    ].join('\n'),
  );
});

test('directive names are fixed identifiers', () => {
  const builder = new ConfigBuilder();
  for (const name of ['', 'Proxy_pass', 'a b', 'x;', 'include /etc/passwd', '1st', 'a-b', '"set"']) {
    assert.throws(() => builder.directive(name), /invalid nginx directive name/, name);
    assert.throws(() => builder.block(name, [], () => {}), /invalid nginx directive name/, name);
  }
});

test('refuses plain strings smuggled in as arguments', () => {
  const builder = new ConfigBuilder();
  const smuggled = 'x; ssl_engine /tmp/evil.so' as unknown as Argument;
  assert.throws(() => builder.directive('set', smuggled), /Argument values/);
  assert.throws(() => builder.block('location', [smuggled], () => {}), /Argument values/);
  assert.throws(() => builder.entry(smuggled, literal('x')), /Argument values/);
});

test('a hostile value stays one argument of its directive', () => {
  const root = new ConfigBuilder();
  const hostile = '"; } ssl_engine /tmp/evil.so; server { # $x \n';
  root.block('server', [], (server) => {
    server.directive('set', raw.variable('$a'), text(hostile));
    server.block('location', [literal(hostile)], () => {});
  });
  assert.deepEqual(parseNginxConf(serializeConfig(root.nodes)), [
    {
      name: 'server',
      args: [],
      children: [
        { name: 'set', args: ['$a', hostile.replaceAll('$', '${dollar}')] },
        { name: 'location', args: [hostile], children: [] },
      ],
    },
  ]);
});

test("a Lua block holds Portico's calls, one statement per line", () => {
  const root = new ConfigBuilder();
  root.block('http', [], (http) => {
    http.luaBlock('init_by_lua_block', luaBind('portico.balancer'), luaCall('portico.balancer', 'init', { status_port: 10246 }));
    http.block('location', [literal('/')], (location) => location.luaBlock('rewrite_by_lua_block', luaCall('portico.balancer', 'rewrite')));
  });
  const text = serializeConfig(root.nodes);
  assert.equal(
    text,
    [
      'http {',
      ' init_by_lua_block {',
      '  portico_balancer = require("portico.balancer")',
      '  portico_balancer.init({ status_port = 10246 })',
      ' }',
      '',
      ' location "/" {',
      '  rewrite_by_lua_block {',
      '   portico_balancer.rewrite()',
      '  }',
      ' }',
      '}',
      '',
    ].join('\n'),
  );
  assert.deepEqual(parseNginxConf(text)[0]?.children?.[0]?.lua, [
    'portico_balancer = require("portico.balancer")',
    'portico_balancer.init({ status_port = 10246 })',
  ]);
});

test('Lua blocks take only LuaCalls of identifiers and integers', () => {
  const builder = new ConfigBuilder();
  assert.throws(() => builder.luaBlock('rewrite_by_lua_block'), /empty Lua block/);
  assert.throws(() => builder.luaBlock('rewrite', luaCall('portico.balancer', 'rewrite')), /not a Lua block directive/);
  assert.throws(() => builder.luaBlock('rewrite_by_lua_block', 'os.execute("id")' as unknown as LuaCall), /LuaCalls/);
  for (const module of ['portico', 'os', 'portico.x"', 'portico.a;os', 'portico.A']) {
    assert.throws(() => luaBind(module), /invalid Lua module/, module);
    assert.throws(() => luaCall(module, 'f'), /invalid Lua call/, module);
  }
  assert.throws(() => luaCall('portico.balancer', 'f()'), /invalid Lua call/);
  assert.throws(() => luaCall('portico.balancer', 'init', { 'a=1, b': 1 }), /invalid Lua option/);
  assert.throws(() => luaCall('portico.balancer', 'init', { port: 1.5 }), /invalid Lua option/);
  const forge = LuaCall as unknown as new (key: symbol, code: string) => LuaCall;
  assert.throws(() => new forge(Symbol('LuaCall'), 'os.execute("id")'), /luaCall\(\)/);
});

test('every line carries the origin of the node that wrote it, blocks with all they hold', () => {
  const root = new ConfigBuilder();
  root.directive('worker_processes', raw.keyword('auto'));
  root.block('http', [], (http) => {
    http.from(1, () => http.directive('keepalive_timeout', raw.integer(75)));
    http.block('server', [], (server) => {
      server.from(7, () => {
        server.block('location', [literal('/a/')], (location) => location.verbatim('add_header X-A "b";'));
      });
      server.block('location', [literal('/')], (location) => location.directive('return', raw.integer(404)));
    });
  });
  const traced = serializeTracedConfig(root.nodes);
  const lines = traced.bytes.toString().split('\n').slice(0, -1);
  assert.deepEqual(
    lines.map((line, index) => `${traced.lineOrigins[index]} ${line.trim()}`),
    [
      '0 worker_processes auto;',
      '0 ',
      '0 http {',
      '1 keepalive_timeout 75;',
      '0 ',
      '0 server {',
      '7 location "/a/" {',
      '7 add_header X-A "b";',
      '7 }',
      '0 ',
      '0 location "/" {',
      '0 return 404;',
      '0 }',
      '0 }',
      '0 }',
    ],
  );
  assert.equal(serializeConfig(root.nodes), traced.bytes.toString());
});

test('verbatim text is written line by line, indented, without control characters but line breaks and tabs', () => {
  const block = new ConfigBuilder().block('server', [], (server) => server.verbatim('a;\r\n\n\tb;'));
  assert.equal(serializeConfig(block.nodes), 'server {\n a;\n\n \tb;\n}\n');
  for (const text of ['a;\rb;', 'a;\0', 'a;\u001b']) assert.throws(() => new ConfigBuilder().verbatim(text), /control characters/);
});
