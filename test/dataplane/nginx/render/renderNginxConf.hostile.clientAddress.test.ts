// Hostile values in the client-address keys (forwarded-for-header,
// forwarded-for-proxy-protocol-header, proxy-real-ip-cidr, bind-address): the
// model refuses them, and were one to get past it, the builder refuses to render
// it rather than write it into a directive. See renderNginxConf.hostile.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { DEFAULT_SETTINGS, type GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../../src/model/settings/parseGlobalSettings.js';
import { configuration, location, server, testContext } from './fixtures.js';
import { HOSTILE_STRINGS, LONG, web } from './hostileValues.js';

const KEYS: Array<[string, keyof GlobalSettings]> = [
  ['forwarded-for-header', 'forwardedForHeader'],
  ['forwarded-for-proxy-protocol-header', 'forwardedForProxyProtocolHeader'],
  ['proxy-real-ip-cidr', 'proxyRealIpCidr'],
  ['bind-address', 'bindAddress'],
];

const isBareWord = (value: string): boolean => /^[A-Za-z0-9_-]{1,256}$/.test(value);

/** Every client-address directive rendered: real IP with the PROXY protocol and forwarded headers, every address. */
function render(settings: Partial<GlobalSettings>): string {
  const config = configuration({
    servers: [server('_', [location('/', 'prefix', web.name)])],
    backends: [web],
    settings: { useForwardedHeaders: true, useProxyProtocol: true, computeFullForwardedFor: true, ...settings },
  });
  return renderNginxConf(config, testContext({ listenAddresses: [], hostHasIpv6: true }));
}

describe('hostile client-address values', () => {
  test('the ConfigMap parser keeps the default for each', () => {
    for (const value of [...HOSTILE_STRINGS, LONG]) {
      for (const [key, field] of KEYS) {
        const { settings, problems } = parseGlobalSettings({ [key]: value }, { cpus: 2 });
        if (isBareWord(value) && key.endsWith('-header')) {
          assert.equal(settings[field], value, 'a bare word is a header name');
          continue;
        }
        assert.deepEqual(settings[field], DEFAULT_SETTINGS[field], `${key}: ${JSON.stringify(value)}`);
        assert.equal(problems.length, 1, `${key}: ${JSON.stringify(value)}`);
      }
    }
  });

  test('past the parser, the builder refuses to render them', () => {
    assert.ok(render({}).includes('real_ip_header X-Forwarded-For-Proxy-Protocol;'));
    for (const value of HOSTILE_STRINGS) {
      const attempts: Array<Partial<GlobalSettings>> = [
        { forwardedForHeader: value },
        { forwardedForProxyProtocolHeader: value },
        { proxyRealIpCidr: [value] },
        { bindAddress: { ipv4: [value], ipv6: [] } },
        { bindAddress: { ipv4: [], ipv6: [value] } },
      ];
      for (const settings of attempts) {
        // A bare word such as `ssl_engine` is a valid header name: one harmless argument.
        if (isBareWord(value) && !('proxyRealIpCidr' in settings || 'bindAddress' in settings)) {
          assert.doesNotThrow(() => render(settings), JSON.stringify(settings));
          continue;
        }
        assert.throws(
          () => render(settings),
          /invalid (header name|CIDR|listen address|variable name) for nginx/,
          JSON.stringify(settings),
        );
      }
    }
  });
});
