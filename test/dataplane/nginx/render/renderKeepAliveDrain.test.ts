// The keep-alive drain's hooks in rendered nginx.conf (renderKeepAliveDrain.ts):
// the module bound in init_by_lua (the balancer's first attempt asks it), no
// per-response hook (a header filter would cost every response a Lua call),
// and the controller's endpoint on the configuration socket alone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { GOLDEN_SCENARIOS } from './goldenScenarios.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, luaBlocks, named, only, servers } from './parsedTree.js';

describe('keep-alive drain hooks', () => {
  for (const scenario of GOLDEN_SCENARIOS) {
    const tree = parseNginxConf(renderNginxConf(scenario.configuration, scenario.context));
    const http = only(tree, 'http');

    test(`${scenario.name}: no header filter runs per response; init_by_lua binds the module`, () => {
      const filters = luaBlocks(tree).filter(([name]) => name === 'header_filter_by_lua_block' || name === 'header_filter_by_lua');
      assert.deepEqual(filters, [], 'no block has a header filter');
      assert.ok(
        (only(http.children, 'init_by_lua_block').lua ?? []).includes('portico_keepalive_drain = require("portico.keepalive_drain")'),
        'init_by_lua binds the module the filter calls',
      );
    });

    test(`${scenario.name}: the drain endpoint is on the configuration socket only`, () => {
      const withEndpoint = servers(tree).filter((server) =>
        allDirectives(server.children ?? []).some(
          (node) => node.name === 'location' && node.args.includes('/configuration/keepalive-drain'),
        ),
      );
      assert.equal(withEndpoint.length, 1);
      const listens = named(withEndpoint[0]?.children, 'listen').map(({ args }) => args.join(' '));
      assert.equal(listens.length, 1);
      assert.match(listens[0] ?? '', /^unix:(.*\/)?run\/controller\/configuration\.sock$/);
    });
  }
});
