// Hostile values in the string fields of CORS (enable-cors, cors-*): see renderNginxConf.hostile.test.ts.
// The model refuses all of them; the renderer still keeps each one argument.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Cors } from '../../../../src/model/annotations/corsAnnotations.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { allDirectives, expectedWords, named, only, skeleton } from './parsedTree.js';
import { asText, context, HOSTILE_STRINGS, web } from './hostileValues.js';

const BENIGN: Cors = {
  allowOrigins: ['https://a.example'],
  allowMethods: 'GET',
  allowHeaders: 'X-A',
  exposeHeaders: 'X-B',
  allowCredentials: true,
  maxAge: 1,
};

/** A map's keys are data (parsed as the names of its lines): blanked, so a tree's directive names are directives only. */
function withoutMapKeys(parsed: readonly ParsedDirective[]): ParsedDirective[] {
  return parsed.map((node) => {
    if (node.children === undefined) return node;
    const children = node.name === 'map' ? node.children.map((entry) => ({ ...entry, name: '' })) : withoutMapKeys(node.children);
    return { ...node, children };
  });
}

describe('hostile strings in every CORS field', () => {
  const corsOf = (value: string): Cors => ({
    allowOrigins: [value, `https://*.${value}`],
    allowMethods: value,
    allowHeaders: value,
    exposeHeaders: value,
    allowCredentials: true,
    maxAge: 1,
  });
  const scenario = (values: readonly Cors[]): Configuration => {
    const locations = values.map((cors, index) => {
      const plain = location(`/${index}`, 'exact', web.name);
      return { ...plain, annotations: { ...plain.annotations, cors } };
    });
    return configuration({ servers: [server('_', []), server('cors.example', locations, { tls: true })], backends: [web] });
  };
  const hostile = scenario(HOSTILE_STRINGS.map(corsOf));
  const rendered = renderNginxConf(hostile, context);
  const tree = parseNginxConf(rendered);

  const benignTree = parseNginxConf(renderNginxConf(scenario(HOSTILE_STRINGS.map((_, index) => corsOf(`benign${index}`))), context));

  test('the structure is that of benign values, and nginx reads back the builder arguments', () => {
    assert.deepEqual(skeleton(withoutMapKeys(tree)), skeleton(withoutMapKeys(benignTree)));
    assert.deepEqual(tree, expectedWords(buildNginxConf(hostile, context)));
  });

  test('each origin is escaped into its regex; each header value is one map value, $ as ${dollar}', () => {
    const maps = named(only(tree, 'http').children, 'map');
    for (const value of HOSTILE_STRINGS) {
      const originMaps = maps.filter((map) => map.args[0] === '$http_origin' && map.children?.[1]?.name.includes(value.slice(0, 1)));
      assert.ok(originMaps.length > 0, value);
      const regex = maps
        .map((map) => map.children?.[1]?.name ?? '')
        .find((key) => key.startsWith('~*') && new RegExp(key.slice(2), 'i').test(value));
      assert.ok(regex !== undefined, `an origin regex matches ${JSON.stringify(value)} literally`);
      assert.ok(new RegExp(regex.slice(2), 'i').test(`https://x-y.${value}`), 'and its wildcard form one label');
      const headerValues = maps.map((map) => map.children?.[1]?.args[0]);
      assert.ok(headerValues.includes(asText(value)), `a header map holds ${JSON.stringify(value)}`);
    }
    const directiveNames = (parsed: ParsedDirective[]) => new Set(allDirectives(withoutMapKeys(parsed)).map(({ name }) => name));
    assert.deepEqual(directiveNames(tree), directiveNames(benignTree));
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });

  test('a hostile "*" list value keeps its headers literal and one argument each', () => {
    const anyHostile = scenario(HOSTILE_STRINGS.map((value) => ({ ...corsOf(value), allowOrigins: '*' as const })));
    const parsed = parseNginxConf(renderNginxConf(anyHostile, context));
    assert.deepEqual(parsed, expectedWords(buildNginxConf(anyHostile, context)));
    assert.deepEqual(
      skeleton(parsed),
      skeleton(parseNginxConf(renderNginxConf(scenario(HOSTILE_STRINGS.map(() => ({ ...BENIGN, allowOrigins: '*' as const }))), context))),
    );
  });

  test('a max-age that is not a non-negative integer is refused', () => {
    for (const maxAge of [-1, 1.5, Number.NaN]) {
      assert.throws(() => renderNginxConf(scenario([{ ...BENIGN, maxAge }]), context), /invalid|max-age/);
    }
  });
});
