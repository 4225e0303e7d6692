import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import { HOSTILE_STRINGS } from '../../dataplane/nginx/render/hostileValues.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

test('name: size pairs as ingress-nginx reads them: a bare size is megabytes, k kilobytes, m megabytes; sorted by name', () => {
  const { settings, problems } = parse({ 'lua-shared-dicts': 'my_plugin: 512k, certificate_data: 100 ,other:2M,, small :12K' });
  assert.deepEqual(problems, []);
  assert.deepEqual(settings.luaSharedDicts, [
    { name: 'certificate_data', kilobytes: 102400 },
    { name: 'my_plugin', kilobytes: 512 },
    { name: 'other', kilobytes: 2048 },
    { name: 'small', kilobytes: 12 },
  ]);
  assert.deepEqual(DEFAULT_SETTINGS.luaSharedDicts, []);
  assert.deepEqual(parse({ 'lua-shared-dicts': '' }).settings.luaSharedDicts, []);
  assert.deepEqual(parse({ 'lua-shared-dicts': 'a: 1, a: 2' }).settings.luaSharedDicts, [{ name: 'a', kilobytes: 2048 }]);
  assert.deepEqual(parse({ 'lua-shared-dicts': 'a: 200' }).settings.luaSharedDicts, [{ name: 'a', kilobytes: 204800 }]);
});

test('invalid entries refuse the whole value', () => {
  const hundredAndOne = Array.from({ length: 101 }, (_, index) => `d${index}: 1`).join(',');
  for (const value of [
    'a',
    'a:',
    ':1',
    'a: 1g',
    'a: 11k',
    'a: 201',
    'a: 204801k',
    'a: 1.5',
    'a: -1',
    'a:1:2',
    'a-b: 1',
    'a.b: 1',
    `${'x'.repeat(65)}: 1`,
    hundredAndOne,
    ...HOSTILE_STRINGS,
  ]) {
    const { settings, problems } = parse({ 'lua-shared-dicts': value });
    assert.equal(problems.length, 1, value);
    assert.deepEqual(settings.luaSharedDicts, [], value);
  }
  assert.equal(parse({ 'lua-shared-dicts': hundredAndOne.replace(/,d100: 1$/, '') }).problems.length, 0);
});
