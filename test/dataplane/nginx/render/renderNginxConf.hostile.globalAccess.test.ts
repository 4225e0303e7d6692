// Hostile values in block-user-agents and block-referers (see
// renderNginxConf.hostile.test.ts): the model admits printable ASCII strings
// and portable regexes only (globalAccessSettings.ts); the renderer must still
// keep each one the key of its own map entry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { BlockPattern } from '../../../../src/model/settings/keys/globalAccessSettings.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, expectedWords, named, only, skeleton } from './parsedTree.js';
import { context, HOSTILE_STRINGS, LONG, web } from './hostileValues.js';

function scenario(patterns: BlockPattern[]): Configuration {
  return configuration({
    servers: [server('_', []), server('app.example.com', [location('/', 'prefix', web.name)])],
    backends: [web],
    settings: { blockUserAgents: patterns, blockReferers: patterns },
  });
}

const exact = (value: string): BlockPattern => ({ kind: 'exact', value });
const regex = (pattern: string): BlockPattern => ({ kind: 'regex', caseInsensitive: false, pattern });

/** A directive HOSTILE_STRINGS would add if one broke out of its argument. */
const injected = (directive: ParsedDirective): boolean =>
  directive.name === 'ssl_engine' ||
  (directive.name === 'include' && directive.args[0] === '/etc/passwd') ||
  (directive.name === 'load_module' && directive.args[0] === 'y');

const mapEntries = (tree: readonly ParsedDirective[], variable: string): ParsedDirective[] =>
  named(only(tree, 'http').children, 'map').find((map) => map.args[1] === variable)?.children ?? [];

/** The tree without the block maps' entries (their keys are the values, which may well read as directive names). */
const withoutMapEntries = (tree: readonly ParsedDirective[]): ParsedDirective[] =>
  tree.map((node) =>
    node.name === 'http'
      ? { ...node, children: node.children?.filter((child) => !['$block_ua', '$block_ref'].includes(child.args[1] ?? '')) }
      : node,
  );

for (const [kind, patterns] of [
  ['exact strings', HOSTILE_STRINGS.map(exact)],
  ['regexes', HOSTILE_STRINGS.map(regex)],
] as const) {
  describe(`hostile block-user-agents and block-referers: ${kind}`, () => {
    const hostile = scenario([...patterns]);
    const rendered = renderNginxConf(hostile, context);
    const tree = parseNginxConf(rendered);

    test('the structure is that of benign values (but for the map keys), and nginx reads back the builder arguments', () => {
      const benign = scenario(HOSTILE_STRINGS.map((_, index) => exact(`benign${index}`)));
      assert.deepEqual(skeleton(withoutMapEntries(tree)), skeleton(withoutMapEntries(parseNginxConf(renderNginxConf(benign, context)))));
      assert.deepEqual(tree, expectedWords(buildNginxConf(hostile, context)));
      assert.ok(!allDirectives(withoutMapEntries(tree)).some(injected));
    });

    test('each value is one map key (of each map), mapped to "on"', () => {
      for (const variable of ['$block_ua', '$block_ref']) {
        const entries = mapEntries(tree, variable);
        assert.equal(entries.length, 1 + HOSTILE_STRINGS.length);
        assert.deepEqual(
          entries.map((entry) => [entry.args, entry.children]),
          entries.map((_, index) => [[index === 0 ? 'off' : 'on'], undefined]),
        );
      }
    });

    test('passes nginx -t', { skip: missingNginx }, async () => {
      await nginxSyntaxCheck(rendered, context);
    });
  });
}

test('a value longer than nginx reads is refused', () => {
  assert.throws(() => renderNginxConf(scenario([regex(LONG)]), context), /too long/);
});
