// use-geoip2 and geoip2-autoreload-in-minutes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

test('the keys, and their defaults (off, never reloaded)', () => {
  const { settings, problems } = parse({ 'use-geoip2': 'true', 'geoip2-autoreload-in-minutes': '60' });
  assert.deepEqual(problems, []);
  assert.equal(settings.useGeoip2, true);
  assert.equal(settings.geoip2AutoreloadInMinutes, 60);
  assert.equal(parse({}).settings.useGeoip2, false);
  assert.equal(parse({}).settings.geoip2AutoreloadInMinutes, 0);
});

for (const [key, value] of [
  ['use-geoip2', 'yes'],
  ['geoip2-autoreload-in-minutes', '-1'],
  ['geoip2-autoreload-in-minutes', '5m'],
  ['geoip2-autoreload-in-minutes', '99999999999'],
  ['geoip2-autoreload-in-minutes', '1; include /etc/passwd'],
] as const) {
  test(`${key}: ${JSON.stringify(value)} keeps the default with a problem`, () => {
    const { settings, problems } = parse({ [key]: value });
    assert.deepEqual(settings, parse({}).settings);
    assert.match(problems[0] ?? '', new RegExp(`^ConfigMap key ${key}: invalid value`));
  });
}
