// proxy-stream-*: ingress-nginx's defaults, valid values, and refusals (the
// default kept, a problem returned), hostile values included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import { STREAM_PROXY_DEFAULTS } from '../../../src/model/settings/keys/streamProxySettings.js';
import { HOSTILE_STRINGS, LONG } from '../../dataplane/nginx/render/hostileValues.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

test("ingress-nginx's defaults", () => {
  assert.deepEqual(STREAM_PROXY_DEFAULTS, {
    proxyStreamTimeout: '600s',
    proxyStreamNextUpstream: true,
    proxyStreamNextUpstreamTimeout: '600s',
    proxyStreamNextUpstreamTries: 3,
    proxyStreamResponses: 1,
  });
  const { settings } = parse({});
  assert.equal(settings.proxyStreamTimeout, '600s');
  assert.equal(settings.proxyStreamResponses, 1);
});

test('valid values', () => {
  const { settings, problems } = parse({
    'proxy-stream-timeout': '10m',
    'proxy-stream-next-upstream': 'False',
    'proxy-stream-next-upstream-timeout': '500ms',
    'proxy-stream-next-upstream-tries': '0',
    'proxy-stream-responses': '0',
  });
  assert.deepEqual(problems, []);
  assert.equal(settings.proxyStreamTimeout, '10m');
  assert.equal(settings.proxyStreamNextUpstream, false);
  assert.equal(settings.proxyStreamNextUpstreamTimeout, '500ms');
  assert.equal(settings.proxyStreamNextUpstreamTries, 0);
  assert.equal(settings.proxyStreamResponses, 0);
});

test('invalid and hostile values keep the default, each with a problem', () => {
  const invalid: Record<string, string[]> = {
    'proxy-stream-timeout': ['25d', '1h30m', '-1s', '10M', '1y', ''],
    'proxy-stream-next-upstream': ['yes', 'on', ''],
    'proxy-stream-next-upstream-timeout': ['2147484s', 'soon'],
    'proxy-stream-next-upstream-tries': ['-1', '2147483648', '1.5', '3x'],
    'proxy-stream-responses': ['-1', '2147483648', 'one'],
  };
  for (const [key, values] of Object.entries(invalid)) {
    for (const value of [...values, ...HOSTILE_STRINGS, LONG]) {
      const { settings, problems } = parse({ [key]: value });
      assert.equal(problems.length, 1, `${key}: ${JSON.stringify(value)}`);
      assert.deepEqual(
        {
          proxyStreamTimeout: settings.proxyStreamTimeout,
          proxyStreamNextUpstream: settings.proxyStreamNextUpstream,
          proxyStreamNextUpstreamTimeout: settings.proxyStreamNextUpstreamTimeout,
          proxyStreamNextUpstreamTries: settings.proxyStreamNextUpstreamTries,
          proxyStreamResponses: settings.proxyStreamResponses,
        },
        STREAM_PROXY_DEFAULTS,
      );
    }
  }
});
