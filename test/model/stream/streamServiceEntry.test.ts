// One TCP/UDP services ConfigMap entry, read as ingress-nginx's
// getStreamServices reads it, and refused where it would render what nginx
// refuses or serve something other than what it says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStreamEntry, streamUpstreamName } from '../../../src/model/stream/streamServiceEntry.js';
import { HOSTILE_STRINGS, LONG } from '../../dataplane/nginx/render/hostileValues.js';

const entry = (key: string, value: string, protocol: 'TCP' | 'UDP' = 'TCP') => {
  const parsed = parseStreamEntry(key, value, protocol);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.entry;
};
const refusal = (key: string, value: string, protocol: 'TCP' | 'UDP' = 'TCP') => {
  const parsed = parseStreamEntry(key, value, protocol);
  assert.ok(!parsed.ok, `${key}: ${JSON.stringify(value)} accepted`);
  return parsed.message;
};

test('namespace/service:port, by number or by name', () => {
  assert.deepEqual(entry('9000', 'default/echo:8080'), {
    port: 9000,
    protocol: 'TCP',
    namespace: 'default',
    name: 'echo',
    servicePort: '8080',
    proxyProtocol: { decode: false, encode: false },
    ignoredProxyFields: false,
  });
  assert.equal(entry('53', 'kube-system/kube-dns:dns', 'UDP').servicePort, 'dns');
  assert.equal(entry('9000', ' default/echo:8080\n').name, 'echo', 'surrounding white space (a YAML block scalar) is ignored');
});

test('the third field PROXY decodes, the fourth encodes, ignoring case', () => {
  assert.deepEqual(entry('1', 'a/b:80:PROXY').proxyProtocol, { decode: true, encode: false });
  assert.deepEqual(entry('1', 'a/b:80::PROXY').proxyProtocol, { decode: false, encode: true });
  assert.deepEqual(entry('1', 'a/b:80:proxy:Proxy').proxyProtocol, { decode: true, encode: true });
  assert.deepEqual(entry('1', 'a/b:80::').proxyProtocol, { decode: false, encode: false });
});

test('PROXY fields of a UDP entry are ignored (as ingress-nginx), and said', () => {
  const udp = entry('53', 'a/b:53:PROXY:PROXY', 'UDP');
  assert.deepEqual(udp.proxyProtocol, { decode: false, encode: false });
  assert.equal(udp.ignoredProxyFields, true);
  assert.equal(entry('53', 'a/b:53', 'UDP').ignoredProxyFields, false);
});

test('the key is a port from 1 to 65535', () => {
  for (const key of ['0', '65536', '99999999', '-1', '+80', '80a', '', ' 80', '0x50', '1e3', 'http']) {
    assert.match(refusal(key, 'a/b:80'), /the key must be a port number from 1 to 65535/, key);
  }
  assert.equal(entry('65535', 'a/b:80').port, 65535);
  assert.equal(entry('1', 'a/b:80').port, 1);
  assert.equal(entry('080', 'a/b:80').port, 80);
});

test('malformed values are refused', () => {
  for (const value of [
    '',
    'a/b',
    'a/b:',
    'b:80',
    'a/b/c:80',
    '/b:80',
    'a/:80',
    'A/b:80',
    'a/B:80',
    'a/1b:80',
    'a/b:0',
    'a/b:65536',
    'a/b:-1',
    'a/b:has space',
    'a/b:toolongportname1',
    'a/b:80:PROXY:PROXY:PROXY',
    'a/b:80:yes',
    'a/b:80::no',
    'a/b:80:PROXYX',
    `a/${'b'.repeat(64)}:80`,
  ]) {
    assert.match(refusal('9000', value), /^TCP port "9000": value .* is not namespace\/service:port\[:PROXY\[:PROXY\]\]/, value);
  }
});

test('hostile values are refused, and the message quotes them escaped and truncated', () => {
  for (const hostile of [...HOSTILE_STRINGS, LONG]) {
    for (const value of [hostile, `default/echo:${hostile}`, `default/echo:80:${hostile}`, `${hostile}/echo:80`]) {
      const message = refusal('9000', value);
      assert.ok(!/[\n\r]/.test(message), 'no line break reaches the Event');
      assert.ok(message.length < 400, 'the value is truncated');
    }
    assert.match(refusal(hostile, 'a/b:80'), /the key must be a port number/);
  }
});

test("ingress-nginx's upstream name: protocol, namespace, service and the port as written", () => {
  assert.equal(streamUpstreamName(entry('9000', 'default/echo:8080')), 'tcp-default-echo-8080');
  assert.equal(streamUpstreamName(entry('53', 'kube-system/kube-dns:dns', 'UDP')), 'udp-kube-system-kube-dns-dns');
});
