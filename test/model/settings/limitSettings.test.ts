import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

test("ingress-nginx's defaults: 503 for both limits, counted by $binary_remote_addr, no bandwidth limit", () => {
  assert.equal(DEFAULT_SETTINGS.limitReqStatusCode, 503);
  assert.equal(DEFAULT_SETTINGS.limitConnStatusCode, 503);
  assert.equal(DEFAULT_SETTINGS.limitConnZoneVariable, '$binary_remote_addr');
  assert.equal(DEFAULT_SETTINGS.limitRate, 0);
  assert.equal(DEFAULT_SETTINGS.limitRateAfter, 0);
});

test('the limit keys of the ConfigMap', () => {
  const { settings, problems, unknownKeys } = parse({
    'limit-req-status-code': '429',
    'limit-conn-status-code': '599',
    'limit-conn-zone-variable': '${binary_remote_addr}:$http_x_api_key.$host',
    'limit-rate': '100',
    'limit-rate-after': '2048',
  });
  assert.deepEqual([problems, unknownKeys], [[], []]);
  assert.equal(settings.limitReqStatusCode, 429);
  assert.equal(settings.limitConnStatusCode, 599);
  assert.equal(settings.limitConnZoneVariable, '${binary_remote_addr}:$http_x_api_key.$host');
  assert.equal(settings.limitRate, 100);
  assert.equal(settings.limitRateAfter, 2048);
});

test('status codes outside 400-599 (what nginx takes) are refused, keeping 503', () => {
  for (const key of ['limit-req-status-code', 'limit-conn-status-code']) {
    for (const value of ['399', '600', '200', '-429', '429; return 200', 'x']) {
      const { settings, problems } = parse({ [key]: value });
      assert.equal(problems.length, 1, `${key}: ${value}`);
      assert.ok(problems[0]?.includes(key) && problems[0].includes('from 400 to 599'), problems[0]);
      assert.equal(settings.limitReqStatusCode, 503);
      assert.equal(settings.limitConnStatusCode, 503);
    }
  }
});

test('limit-conn-zone-variable refuses anything but known variables, and hostile text', () => {
  for (const [value, fragment] of [
    ['binary_remote_addr', 'nginx variables'],
    ['', 'nginx variables'],
    ['$no_such_variable', '"$no_such_variable" is not a variable'],
    ['$binary_remote_addrx', '"$binary_remote_addrx" is not a variable'],
    ['$1', '"$1" is not a variable'],
    ['$remote_addr $host', 'nginx variables'],
    ['$remote_addr"; } ssl_engine x; #', 'nginx variables'],
    ['$remote_addr;limit_req_zone', 'nginx variables'],
    ['${remote_addr', 'nginx variables'],
    ['$', 'nginx variables'],
    ["$remote_addr'", 'nginx variables'],
    ['$remote_addr\\', 'nginx variables'],
  ] as const) {
    const { settings, problems } = parse({ 'limit-conn-zone-variable': value });
    assert.equal(settings.limitConnZoneVariable, '$binary_remote_addr', value);
    assert.equal(problems.length, 1, value);
    assert.ok(problems[0]?.includes(fragment), `${value}: ${problems[0]}`);
  }
});
