import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import { HOSTILE_STRINGS } from '../../dataplane/nginx/render/hostileValues.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

test("ingress-nginx's defaults: gzip off, level 1, 256 bytes, its 17 types, no User-Agent excluded", () => {
  assert.equal(DEFAULT_SETTINGS.useGzip, false);
  assert.equal(DEFAULT_SETTINGS.gzipLevel, 1);
  assert.equal(DEFAULT_SETTINGS.gzipMinLength, 256);
  assert.equal(DEFAULT_SETTINGS.gzipTypes.length, 17);
  assert.ok(DEFAULT_SETTINGS.gzipTypes.includes('application/json') && DEFAULT_SETTINGS.gzipTypes.includes('text/css'));
  assert.equal(DEFAULT_SETTINGS.gzipDisable, undefined);
});

test('valid gzip keys', () => {
  const { settings, problems, unknownKeys } = parse({
    'use-gzip': 'true',
    'gzip-level': '9',
    'gzip-min-length': '0',
    'gzip-types': '  application/json   text/plain application/vnd.api+json ',
    'gzip-disable': 'MSIE [1-6]\\.',
  });
  assert.deepEqual([problems, unknownKeys], [[], []]);
  assert.equal(settings.useGzip, true);
  assert.equal(settings.gzipLevel, 9);
  assert.equal(settings.gzipMinLength, 0);
  assert.deepEqual(settings.gzipTypes, ['application/json', 'text/plain', 'application/vnd.api+json']);
  assert.equal(settings.gzipDisable, 'MSIE [1-6]\\.');
  assert.deepEqual(parse({ 'gzip-types': '*' }).settings.gzipTypes, ['*']);
  assert.equal(parse({ 'gzip-disable': 'msie6' }).settings.gzipDisable, 'msie6');
  assert.equal(parse({ 'gzip-disable': '' }).settings.gzipDisable, undefined);
});

test('invalid gzip values keep the default and are reported', () => {
  for (const [key, value] of [
    ['use-gzip', 'yes'],
    ['gzip-level', '0'],
    ['gzip-level', '10'],
    ['gzip-level', '-1'],
    ['gzip-min-length', '-1'],
    ['gzip-min-length', '1k'],
    ['gzip-min-length', '2147483648'],
    ['gzip-types', ''],
    ['gzip-types', 'text'],
    ['gzip-types', 'text/*'],
    ['gzip-types', 'text/css,application/json'],
    ['gzip-types', 'text/css;'],
    ['gzip-disable', '(a+)+'],
    ['gzip-disable', '(?i)msie'],
    ['gzip-disable', 'x'.repeat(257)],
  ] as const) {
    const { settings, problems } = parse({ [key]: value });
    assert.equal(problems.length, 1, `${key}: ${value}`);
    assert.ok(problems[0]?.startsWith(`ConfigMap key ${key}:`), problems[0]);
    assert.deepEqual(settings, DEFAULT_SETTINGS, `${key}: ${value}`);
  }
});

test('hostile strings are refused as gzip types; as a gzip-disable regex only as literal text a builder quotes', () => {
  for (const value of [...HOSTILE_STRINGS, 'text/css; gzip off', 'text/css"', 'text/css}']) {
    const types = parse({ 'gzip-types': value });
    assert.equal(types.problems.length, 1, value);
    assert.deepEqual(types.settings.gzipTypes, DEFAULT_SETTINGS.gzipTypes, value);
    const { settings } = parse({ 'gzip-disable': value });
    // What passes is a regex of printable ASCII (no control characters), which the renderer quotes as one argument.
    if (settings.gzipDisable !== undefined) assert.match(settings.gzipDisable, /^[\x20-\x7e]+$/);
  }
});
