import assert from 'node:assert/strict';
import { test } from 'node:test';
import { literal, raw, text, type Argument } from '../../../../src/dataplane/nginx/render/arguments.js';
import { ConfigBuilder, serializeConfig } from '../../../../src/dataplane/nginx/render/configBuilder.js';
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
  assert.equal(serializeConfig(root.nodes), [
    'worker_processes auto;',
    '',
    'http {',
    '    map $http_upgrade $connection_upgrade {',
    '        default upgrade;',
    '        "" close;',
    '    }',
    '',
    '    server {',
    '        server_name "example.com";',
    '',
    '        location = "/a" {',
    '            return 204;',
    '        }',
    '    }',
    '}',
    '',
  ].join('\n'));
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
  assert.deepEqual(parseNginxConf(serializeConfig(root.nodes)), [{
    name: 'server',
    args: [],
    children: [
      { name: 'set', args: ['$a', hostile.replaceAll('$', '${dollar}')] },
      { name: 'location', args: [hostile], children: [] },
    ],
  }]);
});
