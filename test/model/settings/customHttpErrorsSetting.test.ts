// The ConfigMap's custom-http-errors: the same list as the annotation's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';

const parse = (value: string) => parseGlobalSettings({ 'custom-http-errors': value }, { cpus: 2 });

test('custom-http-errors: statuses 400-599, sorted and each once; none by default', () => {
  assert.deepEqual(DEFAULT_SETTINGS.customHttpErrors, []);
  const parsed = parse('503, 404,404');
  assert.deepEqual(parsed.settings.customHttpErrors, [404, 503]);
  assert.deepEqual(parsed.problems, []);
  assert.deepEqual(parsed.unknownKeys, []);
});

test('an invalid custom-http-errors keeps the default and is reported', () => {
  for (const value of ['200', '404;', '404 500', '"; } #', '$status']) {
    const parsed = parse(value);
    assert.deepEqual(parsed.settings.customHttpErrors, [], value);
    assert.equal(parsed.problems.length, 1, value);
    assert.match(parsed.problems[0] ?? '', /custom-http-errors/);
  }
});
