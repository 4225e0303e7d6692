// The client-address group's ConfigMap keys (keys/clientAddressSettings.ts):
// valid values, invalid ones (the default stays, a problem is returned) and hostile ones.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';

const ENVIRONMENT = { cpus: 2 };

function parse(data: Record<string, string>) {
  return parseGlobalSettings(data, ENVIRONMENT);
}

/** The key's value is refused: the default stays and the problem names the key. */
function assertRefused(key: string, value: string, field: keyof typeof DEFAULT_SETTINGS): void {
  const { settings, problems } = parse({ [key]: value });
  assert.deepEqual(settings[field], DEFAULT_SETTINGS[field], `${key}: ${JSON.stringify(value)}`);
  assert.equal(problems.length, 1, `${key}: ${JSON.stringify(value)}`);
  assert.match(problems[0]!, new RegExp(`^ConfigMap key ${key}: .*keeping the default$`));
}

describe('client address keys', () => {
  test("defaults are ingress-nginx's", () => {
    const { settings, problems, unknownKeys } = parse({});
    assert.deepEqual(problems, []);
    assert.deepEqual(unknownKeys, []);
    assert.equal(settings.enableRealIp, false);
    assert.deepEqual(settings.proxyRealIpCidr, ['0.0.0.0/0']);
    assert.equal(settings.useProxyProtocol, false);
    assert.equal(settings.proxyProtocolHeaderTimeoutMs, 5000);
    assert.equal(settings.forwardedForProxyProtocolHeader, 'X-Forwarded-For-Proxy-Protocol');
    assert.equal(settings.reusePort, false, "Portico's default (ingress-nginx's is true: see clientAddressSettings.ts)");
    assert.deepEqual(settings.bindAddress, { ipv4: [], ipv6: [] });
    assert.equal(settings.disableIpv6, false);
  });

  test('valid values', () => {
    const { settings, problems, unknownKeys } = parse({
      'enable-real-ip': 'true',
      'proxy-real-ip-cidr': ' 10.0.0.0/8, 192.168.0.1/32,,2001:db8::/32 ',
      'use-proxy-protocol': 'True',
      'proxy-protocol-header-timeout': '1m30.5s',
      'forwarded-for-proxy-protocol-header': 'X-Real-Chain',
      'reuse-port': '1',
      'bind-address': '127.0.0.1, ::1,10.0.0.1,127.0.0.1',
      'disable-ipv6': 't',
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(unknownKeys, []);
    assert.equal(settings.enableRealIp, true);
    assert.deepEqual(settings.proxyRealIpCidr, ['10.0.0.0/8', '192.168.0.1/32', '2001:db8::/32']);
    assert.equal(settings.useProxyProtocol, true);
    assert.equal(settings.proxyProtocolHeaderTimeoutMs, 90_500);
    assert.equal(settings.forwardedForProxyProtocolHeader, 'X-Real-Chain');
    assert.equal(settings.reusePort, true);
    assert.deepEqual(settings.bindAddress, { ipv4: ['127.0.0.1', '10.0.0.1'], ipv6: ['::1'] });
    assert.equal(settings.disableIpv6, true);
  });

  test('proxy-real-ip-cidr: empty trusts no proxy; Go durations of every unit', () => {
    assert.deepEqual(parse({ 'proxy-real-ip-cidr': '' }).settings.proxyRealIpCidr, []);
    const durations: Array<[string, number]> = [
      ['0', 0],
      ['500ms', 500],
      ['2h', 7_200_000],
      ['1500us', 1.5],
      ['.5s', 500],
      ['24h', 86_400_000],
    ];
    for (const [text, ms] of durations) {
      assert.equal(parse({ 'proxy-protocol-header-timeout': text }).settings.proxyProtocolHeaderTimeoutMs, ms, text);
    }
  });

  test('invalid values keep the default', () => {
    const cases: Array<[string, string, keyof typeof DEFAULT_SETTINGS]> = [
      ['enable-real-ip', 'yes', 'enableRealIp'],
      ['use-proxy-protocol', 'on', 'useProxyProtocol'],
      ['reuse-port', '2', 'reusePort'],
      ['disable-ipv6', 'no', 'disableIpv6'],
      ['proxy-real-ip-cidr', '10.0.0.0/33', 'proxyRealIpCidr'],
      ['proxy-real-ip-cidr', 'example.com', 'proxyRealIpCidr'],
      ['proxy-real-ip-cidr', 'fe80::1%eth0', 'proxyRealIpCidr'],
      ['proxy-protocol-header-timeout', '5', 'proxyProtocolHeaderTimeoutMs'],
      ['proxy-protocol-header-timeout', '-1s', 'proxyProtocolHeaderTimeoutMs'],
      ['proxy-protocol-header-timeout', '25h', 'proxyProtocolHeaderTimeoutMs'],
      ['proxy-protocol-header-timeout', '1d', 'proxyProtocolHeaderTimeoutMs'],
      ['forwarded-for-proxy-protocol-header', 'X Forwarded', 'forwardedForProxyProtocolHeader'],
      ['bind-address', '10.0.0.256', 'bindAddress'],
      ['bind-address', '[::1]', 'bindAddress'],
      ['bind-address', 'localhost', 'bindAddress'],
      ['bind-address', '10.0.0.0/8', 'bindAddress'],
    ];
    for (const [key, value, field] of cases) assertRefused(key, value, field);
  });

  test('hostile values never reach a setting', () => {
    const hostile = ['1.2.3.4;\ninclude /etc/passwd', '0.0.0.0/0; deny all', '"1.2.3.4"', '1.2.3.4 }', '$remote_addr', '1.2.3.4\u0000'];
    for (const value of hostile) {
      assertRefused('proxy-real-ip-cidr', value, 'proxyRealIpCidr');
      assertRefused('bind-address', value, 'bindAddress');
      assertRefused('forwarded-for-proxy-protocol-header', value, 'forwardedForProxyProtocolHeader');
      assertRefused('proxy-protocol-header-timeout', value, 'proxyProtocolHeaderTimeoutMs');
    }
  });
});
