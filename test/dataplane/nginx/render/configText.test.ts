import assert from 'node:assert/strict';
import { test } from 'node:test';
import { literal, raw, text } from '../../../../src/dataplane/nginx/render/arguments.js';
import { ConfigBuilder, serializeTracedConfig } from '../../../../src/dataplane/nginx/render/configBuilder.js';
import { luaBind, luaCall } from '../../../../src/dataplane/nginx/render/luaCall.js';
import { parseNginxConf } from './nginxConfTokenizer.js';

/** Every kind of node, at several depths and origins, with values of 1-, 2-, 3- and 4-byte UTF-8 characters. */
function writeSample(root: ConfigBuilder, servers: number): void {
  root.directive('worker_processes', raw.keyword('auto'));
  root.block('http', [], (http) => {
    http.luaBlock('init_by_lua_block', luaBind('portico.balancer'));
    http.block('map', [raw.variable('$http_upgrade'), raw.variable('$connection_upgrade')], (map) => {
      map.entry(raw.keyword('default'), raw.keyword('upgrade'));
      map.entry(literal(''), raw.keyword('close'));
    });
    for (let index = 0; index < servers; index++) {
      http.from(index + 2, () =>
        http.block('server', [], (server) => {
          server.directive('server_name', literal(`h${index}.example`));
          server.verbatim(`# snippet ${index}\r\n\n\tadd_header X-S "${index}";`);
          server.block('location', [raw.keyword('='), literal(`/é€𝄞/${index}`)], (location) => {
            location.directive('set', raw.variable('$a'), text(`ü$x€${'𝄞'.repeat(index % 300)}`));
            location.luaBlock('rewrite_by_lua_block', luaCall('portico.balancer', 'rewrite'));
          });
        }),
      );
    }
  });
}

test('a builder that writes text as it goes writes what the directive tree serializes to, line origins included', () => {
  // 3,000 servers: several MiB, past the first buffer, with multi-byte characters across its chunks.
  for (const servers of [0, 1, 3_000]) {
    const tree = new ConfigBuilder();
    writeSample(tree, servers);
    const { root, finish } = ConfigBuilder.writingText();
    writeSample(root, servers);
    const written = finish();
    const serialized = serializeTracedConfig(tree.nodes);
    assert.equal(written.bytes.toString(), serialized.bytes.toString(), `${servers} servers`);
    assert.deepEqual(written.lineOrigins, serialized.lineOrigins, `${servers} servers`);
    assert.equal(written.lineOrigins.length, written.bytes.toString().split('\n').length - 1);
  }
});

test('what is written as it goes parses as nginx reads it', () => {
  const { root, finish } = ConfigBuilder.writingText();
  writeSample(root, 2);
  const parsed = parseNginxConf(finish().bytes.toString());
  const servers = parsed.find((node) => node.name === 'http')?.children?.filter((node) => node.name === 'server');
  const location = servers?.[1]?.children?.find((node) => node.name === 'location');
  assert.deepEqual(location?.args, ['=', '/é€𝄞/1']);
  assert.deepEqual(location?.children?.[0], { name: 'set', args: ['$a', 'ü${dollar}x€𝄞'] });
});

test('a block that is not the innermost open one cannot be written to', () => {
  const { root, finish } = ConfigBuilder.writingText();
  let server: ConfigBuilder | undefined;
  root.block('http', [], (http) => {
    http.block('server', [], (inner) => {
      server = inner;
      // Its text would land inside the server block, where the directive tree would not put it.
      assert.throws(() => http.directive('keepalive_timeout', raw.integer(75)), /another block is open/);
      assert.throws(() => root.block('events', [], () => {}), /another block is open/);
    });
    http.directive('keepalive_timeout', raw.integer(75));
  });
  // Nor a block once it is closed: the text after it is another block's.
  assert.throws(() => server?.directive('listen', raw.integer(80)), /another block is open/);
  assert.equal(finish().bytes.toString(), 'http {\n server {\n }\n keepalive_timeout 75;\n}\n');
});

test('a builder that writes text keeps no tree, and tells what it wrote', () => {
  for (const builder of [new ConfigBuilder(), ConfigBuilder.writingText().root]) {
    builder.directive('add_header', raw.headerName('X-A'), text('1'));
    builder.block('location', [literal('/')], (location) => location.directive('add_header', raw.headerName('X-B'), text('2')));
    assert.equal(builder.hasDirective('add_header', 'X-A'), true);
    assert.equal(builder.hasDirective('add_header', '"1"'), false);
    assert.equal(builder.hasDirective('add_header', 'X-B'), false, 'a directive of a block it holds is not its own');
    assert.equal(builder.hasDirective('location', '"/"'), true);
  }
  assert.throws(() => ConfigBuilder.writingText().root.nodes, /keeps no directive tree/);
});
