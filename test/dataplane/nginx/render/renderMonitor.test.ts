// The request-metrics hook in rendered nginx.conf: only with a monitor target,
// loaded in init_by_lua with integers only, and in the one log_by_lua_block of
// every proxied location, after the balancer's call where ewma needs one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration } from '../../../../src/model/types.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { luaBlocks, locationOf, named, only, serverNamed } from './parsedTree.js';

const MONITOR = { port: 40123, token: 123456789012345, maxBatchSize: 10000 };

const web = backend('default-web-80', [{ address: '10.0.0.1', port: 80 }]);
const ewma = {
  ...backend('default-ewma-80', [{ address: '10.0.0.2', port: 80 }]),
  balancing: { ...web.balancing, algorithm: 'ewma' as const },
};

const served: Configuration = configuration({
  servers: [server('_', []), server('a.example.com', [location('/api', 'exact', web.name), location('/fast', 'exact', ewma.name)])],
  backends: [web, ewma],
});

function parsed(monitor?: typeof MONITOR): ParsedDirective[] {
  return parseNginxConf(renderNginxConf(served, testContext({ monitor })));
}

describe('monitor hook', () => {
  test('is absent without --enable-metrics', () => {
    const text = renderNginxConf(served, testContext());
    assert.doesNotMatch(text, /portico\.monitor/);
  });

  test('init_by_lua tells the module the listener, its token and the batch size', () => {
    const init = named(only(parsed(MONITOR), 'http').children ?? [], 'init_by_lua_block')[0];
    assert.equal(init?.lua?.at(-1), 'portico_monitor.init({ port = 40123, token = 123456789012345, max_batch_size = 10000 })');
  });

  test("every proxied location logs through the monitor, after ewma's balancer call, in one log_by_lua_block; a 404 location does not", () => {
    const host = serverNamed(parsed(MONITOR), 'a.example.com');
    assert.deepEqual(luaBlocks([locationOf(host, '=', '/api')]), [['log_by_lua_block', 'portico_monitor.call()']]);
    assert.deepEqual(luaBlocks([locationOf(host, '=', '/fast')]), [
      ['log_by_lua_block', 'portico_balancer.log()', 'portico_monitor.call()'],
    ]);
    assert.deepEqual(luaBlocks([locationOf(host, '/')]), []);
  });

  test('init_by_lua binds every module a hook calls, before init calls into it', () => {
    const blocks = luaBlocks(parsed(MONITOR));
    const init = blocks.find(([name]) => name === 'init_by_lua_block')?.slice(1) ?? [];
    const binding = (statement: string): string | undefined => /^(portico_[a-z_]+) = require\("portico\.[a-z_.]+"\)$/.exec(statement)?.[1];
    const target = (statement: string): string | undefined => /^(portico_[a-z_]+)\./.exec(statement)?.[1];
    const bound = init.flatMap((statement) => binding(statement) ?? []);
    assert.deepEqual([...bound].sort(), [
      'portico_authentication',
      'portico_balancer',
      'portico_certificate',
      'portico_configuration',
      'portico_external_auth',
      'portico_keepalive_drain',
      'portico_monitor',
      'portico_routes',
      'portico_worker_malloc',
    ]);
    init.forEach((statement, index) => {
      const module = target(statement);
      if (module !== undefined)
        assert.ok(
          init.slice(0, index).some((earlier) => binding(earlier) === module),
          statement,
        );
    });
    for (const statement of blocks.flatMap(([, ...lua]) => lua)) {
      const module = target(statement);
      if (module !== undefined) assert.ok(bound.includes(module), statement);
    }
  });
});
