import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseListenAddress } from '../../src/admission/listenAddress.js';

test('Go listen addresses: :port is every interface, host:port and [v6]:port one', () => {
  assert.deepEqual(parseListenAddress(':8443'), { host: undefined, port: 8443 });
  assert.deepEqual(parseListenAddress('127.0.0.1:8443'), { host: '127.0.0.1', port: 8443 });
  assert.deepEqual(parseListenAddress('[::1]:9443'), { host: '::1', port: 9443 });
  assert.deepEqual(parseListenAddress('localhost:0'), { host: 'localhost', port: 0 });
});

test('anything else is an error naming the value', () => {
  for (const value of ['8443', ':', ':65536', '::1:8443', 'host:port', '[::1]', ':84a3']) {
    assert.throws(() => parseListenAddress(value), new RegExp(`invalid listen address "${value.replace(/[[\]]/g, '\\$&')}"`), value);
  }
});
