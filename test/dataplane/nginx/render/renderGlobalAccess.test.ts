// block-cidrs, block-user-agents and block-referers as rendered: `deny` in the
// http block, one map per list, a 403 in every server (www redirects too), all
// accepted by nginx -t; nothing at all with the defaults.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { BlockPattern } from '../../../../src/model/settings/keys/globalAccessSettings.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { argsOf, named, only, servers } from './parsedTree.js';
import { context, web } from './hostileValues.js';

function scenario(settings: Partial<GlobalSettings>): Configuration {
  const app = {
    ...server('app.example.com', [location('/', 'prefix', web.name)]),
    wwwRedirect: { hostname: 'www.app.example.com', certificate: undefined },
  };
  return configuration({ servers: [server('_', []), app], backends: [web], settings });
}

const exact = (value: string): BlockPattern => ({ kind: 'exact', value });
const regex = (pattern: string, caseInsensitive = true): BlockPattern => ({ kind: 'regex', caseInsensitive, pattern });

const http = (tree: readonly ParsedDirective[]): ParsedDirective => only(tree, 'http');
const mapOf = (tree: readonly ParsedDirective[], variable: string): ParsedDirective | undefined =>
  named(http(tree).children, 'map').find((map) => map.args[1] === variable);
/** The servers of hosts (not Portico's own: the default-port, status and configuration servers). */
const hostServers = (tree: readonly ParsedDirective[]) => servers(tree).filter((block) => argsOf(block, 'server_name').length > 0);
/** The server-level `if`s on the block variables. */
const blockChecks = (block: ParsedDirective): ParsedDirective[] =>
  named(block.children, 'if').filter((branch) => ['($block_ua', '($block_ref'].includes(branch.args[0] ?? ''));

describe('with the defaults', () => {
  const tree = parseNginxConf(renderNginxConf(scenario({}), context));
  test('no deny in the http block, no block map, no server-level 403', () => {
    assert.deepEqual(argsOf(http(tree), 'deny'), []);
    assert.deepEqual(
      servers(tree).flatMap((block) => argsOf(block, 'allow')),
      [],
    );
    assert.equal(mapOf(tree, '$block_ua'), undefined);
    assert.equal(mapOf(tree, '$block_ref'), undefined);
    for (const block of hostServers(tree)) assert.deepEqual(blockChecks(block), []);
  });
});

describe('with every list set', () => {
  const settings: Partial<GlobalSettings> = {
    blockCidrs: ['10.0.0.0/8', '192.168.0.1', '2001:db8::/32'],
    blockUserAgents: [
      regex('chrome\\/68\\.0\\.3440\\.106\\ safari\\/537\\.36'),
      exact('AlphaBot'),
      exact('default'),
      exact('~tilde'),
      exact('Mozilla/5.0 (iPhone; CPU iPhone OS 11_4_1 like Mac OS X) AppleWebKit/605.1.15'),
    ],
    blockReferers: [regex('example\\.com'), exact('qwerty'), regex('^Bot$', false)],
  };
  const rendered = renderNginxConf(scenario(settings), context);
  const tree = parseNginxConf(rendered);

  test('block-cidrs: one deny per entry in the http block; the status server (the health check of nginx) allows all', () => {
    assert.deepEqual(argsOf(http(tree), 'deny'), [['10.0.0.0/8'], ['192.168.0.1'], ['2001:db8::/32']]);
    const status = servers(tree).find((block) =>
      argsOf(block, 'listen').some(([address]) => address === `127.0.0.1:${context.ports.status}`),
    );
    assert.ok(status);
    assert.deepEqual(argsOf(status, 'allow'), [['all']]);
    assert.deepEqual(
      servers(tree).filter((block) => argsOf(block, 'allow').length > 0),
      [status],
    );
  });

  test('the maps: regexes match-limited, parameter names and "~" strings escaped, long strings as an anchored regex', () => {
    const ua = mapOf(tree, '$block_ua');
    assert.deepEqual(ua?.args, ['$http_user_agent', '$block_ua']);
    assert.deepEqual(
      ua?.children?.map((entry) => [entry.name, ...entry.args]),
      [
        ['default', 'off'],
        ['~*(*LIMIT_MATCH=100000)chrome\\/68\\.0\\.3440\\.106\\ safari\\/537\\.36', 'on'],
        ['AlphaBot', 'on'],
        ['\\default', 'on'],
        ['\\~tilde', 'on'],
        ['~*(*LIMIT_MATCH=100000)^Mozilla/5\\.0 \\(iPhone; CPU iPhone OS 11_4_1 like Mac OS X\\) AppleWebKit/605\\.1\\.15$', 'on'],
      ],
    );
    assert.deepEqual(
      mapOf(tree, '$block_ref')?.children?.map((entry) => [entry.name, ...entry.args]),
      [
        ['default', 'off'],
        ['~*(*LIMIT_MATCH=100000)example\\.com', 'on'],
        ['qwerty', 'on'],
        ['~(*LIMIT_MATCH=100000)^Bot$', 'on'],
      ],
    );
  });

  test('every host server, the catch-all and the www redirect answer 403 before anything else', () => {
    const blocks = hostServers(tree);
    assert.equal(blocks.length, 3);
    for (const block of blocks) {
      const ifs = blockChecks(block);
      assert.deepEqual(
        ifs.map((branch) => [branch.args, argsOf(branch, 'return')]),
        [
          [['($block_ua', '=', 'on)'], [['403']]],
          [['($block_ref', '=', 'on)'], [['403']]],
        ],
      );
    }
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });

  test(
    'an exact string of 46 bytes stays a hash key (and passes nginx -t), one of 47 becomes a regex',
    { skip: missingNginx },
    async () => {
      const keys = (value: string) =>
        mapOf(parseNginxConf(renderNginxConf(scenario({ blockUserAgents: [exact(value)] }), context)), '$block_ua')?.children?.[1]?.name;
      assert.equal(keys('a'.repeat(46)), 'a'.repeat(46));
      assert.equal(keys('a'.repeat(47)), `~*(*LIMIT_MATCH=100000)^${'a'.repeat(47)}$`);
      await nginxSyntaxCheck(
        renderNginxConf(scenario({ blockUserAgents: [exact('a'.repeat(46)), exact('b'.repeat(1024))] }), context),
        context,
      );
    },
  );
});
