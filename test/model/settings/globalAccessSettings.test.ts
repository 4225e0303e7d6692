// block-cidrs, block-user-agents, block-referers, whitelist-source-range and
// denylist-source-range: their parsers, and that an Ingress without the
// access annotations takes the ConfigMap's lists.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseIngressAnnotations } from '../../../src/model/annotations/parseIngressAnnotations.js';
import type { GlobalSettings } from '../../../src/model/settings/globalSettings.js';
import type { LocationAnnotations } from '../../../src/model/types.js';
import { parseBlockPatterns, parseSourceRangeList } from '../../../src/model/settings/keys/globalAccessSettings.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

/** The location annotations of an Ingress with these annotations under these settings. */
function locationOf(annotations: Record<string, string>, settings: GlobalSettings): LocationAnnotations {
  const parsed = parseIngressAnnotations(annotations, { prefix: 'nginx.ingress.kubernetes.io', settings });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  assert.deepEqual(parsed.warnings, []);
  return parsed.value.location;
}

describe('block-cidrs and the source ranges', () => {
  test('addresses and CIDRs, sorted without duplicates; empty is none', () => {
    assert.deepEqual(parseSourceRangeList('10.0.0.0/8, 192.168.0.1,10.0.0.0/8,2001:db8::/32'), {
      ok: true,
      value: ['10.0.0.0/8', '192.168.0.1', '2001:db8::/32'],
    });
    assert.deepEqual(parseSourceRangeList(''), { ok: true, value: [] });
  });

  for (const invalid of ['all', '10.0.0.0/33', '10.0.0.1,,10.0.0.2', 'unix:', '10.0.0.1; deny all', '::1%eth0', 'example.com']) {
    test(`refuses ${JSON.stringify(invalid)}`, () => assert.equal(parseSourceRangeList(invalid).ok, false));
  }

  test('the ConfigMap keys, and a bad value keeps the default with a problem', () => {
    const { settings, problems } = parse({
      'block-cidrs': '172.16.0.0/12,10.0.0.0/8',
      'whitelist-source-range': '127.0.0.1/32',
      'denylist-source-range': '10.9.0.0/16',
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(settings.blockCidrs, ['10.0.0.0/8', '172.16.0.0/12']);
    assert.deepEqual(settings.whitelistSourceRange, ['127.0.0.1/32']);
    assert.deepEqual(settings.denylistSourceRange, ['10.9.0.0/16']);
    const bad = parse({ 'block-cidrs': '10.0.0.0/8,"; include /etc/passwd' });
    assert.deepEqual(bad.settings.blockCidrs, []);
    assert.match(bad.problems[0] ?? '', /^ConfigMap key block-cidrs: invalid value .*keeping the default$/);
  });

  test('an Ingress without allowlist/denylist-source-range takes the ConfigMap lists; its own annotation wins', () => {
    const { settings } = parse({ 'whitelist-source-range': '127.0.0.1/32', 'denylist-source-range': '10.9.0.0/16' });
    const without = locationOf({}, settings);
    assert.deepEqual(without.ipAccess, { allow: ['127.0.0.1/32'], deny: ['10.9.0.0/16'] });
    const own = locationOf({ 'nginx.ingress.kubernetes.io/whitelist-source-range': '10.1.0.0/16' }, settings);
    assert.deepEqual(own.ipAccess, { allow: ['10.1.0.0/16'], deny: ['10.9.0.0/16'] });
    assert.deepEqual(locationOf({}, DEFAULT_SETTINGS).ipAccess, { allow: [], deny: [] });
  });
});

describe('block-user-agents and block-referers', () => {
  test("ingress-nginx's e2e values: a case-insensitive regex with escaped spaces and slashes, and an exact string", () => {
    assert.deepEqual(parseBlockPatterns('~*chrome\\/68\\.0\\.3440\\.106\\ safari\\/537\\.36,AlphaBot'), {
      ok: true,
      value: [
        { kind: 'regex', caseInsensitive: true, pattern: 'chrome\\/68\\.0\\.3440\\.106\\ safari\\/537\\.36' },
        { kind: 'exact', value: 'AlphaBot' },
      ],
    });
    assert.deepEqual(parseBlockPatterns('~*example\\.com, qwerty ,,~^Bot$'), {
      ok: true,
      value: [
        { kind: 'regex', caseInsensitive: true, pattern: 'example\\.com' },
        { kind: 'exact', value: 'qwerty' },
        { kind: 'regex', caseInsensitive: false, pattern: '^Bot$' },
      ],
    });
  });

  test('a leading "\\" is removed as nginx removes it: the rest is a string, even "~..." or "default"', () => {
    assert.deepEqual(parseBlockPatterns('\\~tilde,\\default'), {
      ok: true,
      value: [
        { kind: 'exact', value: '~tilde' },
        { kind: 'exact', value: 'default' },
      ],
    });
  });

  for (const invalid of ['~', '~*', '~(a+)+$', '~(?=x)', '~a\\1', '~[', '~a{2,1}', `~${'a'.repeat(300)}`, 'ünïcødé', 'x'.repeat(1025)]) {
    test(`refuses ${JSON.stringify(invalid.slice(0, 40))}`, () => assert.equal(parseBlockPatterns(invalid).ok, false));
  }

  test('the ConfigMap keys; a bad entry keeps the default (no blocking) with a problem', () => {
    const { settings, problems } = parse({ 'block-user-agents': 'AlphaBot', 'block-referers': '~*evil\\.example' });
    assert.deepEqual(problems, []);
    assert.deepEqual(settings.blockUserAgents, [{ kind: 'exact', value: 'AlphaBot' }]);
    assert.deepEqual(settings.blockReferers, [{ kind: 'regex', caseInsensitive: true, pattern: 'evil\\.example' }]);
    const bad = parse({ 'block-user-agents': 'AlphaBot,~(a|b)*c)' });
    assert.deepEqual(bad.settings.blockUserAgents, []);
    assert.match(bad.problems[0] ?? '', /^ConfigMap key block-user-agents: invalid value/);
  });
});
