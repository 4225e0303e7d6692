// The Services the TCP/UDP services ConfigMaps name: a change to one, or to
// its EndpointSlices, re-syncs; from the moment the ConfigMap names it, and
// no longer once it stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.js';
import { ChangeFeed } from '../../src/store/changeFeed.js';
import { TEST_STORE_SETTINGS } from '../support/watchCluster.js';

test('a Service a stream ConfigMap names, and its EndpointSlices, are relevant while it names them', () => {
  const feed = new ChangeFeed({ quietMs: 0, maxDelayMs: 0 });
  const pushed: string[] = [];
  const push = feed.push.bind(feed);
  feed.push = (key: string) => {
    pushed.push(key);
    push(key);
  };
  const store = new Store({ ...TEST_STORE_SETTINGS, configMaps: ['portico/config', 'portico/tcp'] }, feed);
  let version = 0;
  const tcp = (data: Record<string, string>) =>
    store.sink('ConfigMap').upsert({ metadata: { name: 'tcp', namespace: 'portico', resourceVersion: String(++version) }, data });
  const touch = (name: string) => {
    store
      .sink('Service')
      .upsert({ metadata: { name, namespace: 'app', resourceVersion: String(++version) }, spec: { ports: [{ port: 80 }] } });
    store.sink('EndpointSlice').upsert({
      metadata: { name: `${name}-x`, namespace: 'app', resourceVersion: String(++version), labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'] }],
      ports: [{ port: 80 }],
    });
  };

  touch('echo');
  assert.deepEqual(pushed.splice(0), []);
  tcp({ '9000': 'app/echo:80:PROXY', '9001': ' app/dns:53\n' });
  assert.deepEqual(pushed.splice(0), ['ConfigMap/portico/tcp']);
  touch('echo');
  touch('dns');
  touch('other');
  assert.deepEqual(pushed.splice(0), ['Service/app/echo', 'EndpointSlice/app/echo-x', 'Service/app/dns', 'EndpointSlice/app/dns-x']);
  tcp({});
  pushed.splice(0);
  touch('echo');
  assert.deepEqual(pushed.splice(0), []);
});

test("the global ConfigMap's values name no Service (only numeric keys count)", () => {
  const feed = new ChangeFeed({ quietMs: 0, maxDelayMs: 0 });
  const pushed: string[] = [];
  const push = feed.push.bind(feed);
  feed.push = (key: string) => {
    pushed.push(key);
    push(key);
  };
  const store = new Store({ ...TEST_STORE_SETTINGS, configMaps: ['portico/config'] }, feed);
  store.sink('ConfigMap').upsert({ metadata: { name: 'config', namespace: 'portico' }, data: { 'default-backend': 'app/echo:80' } });
  pushed.splice(0);
  store.sink('Service').upsert({ metadata: { name: 'echo', namespace: 'app' }, spec: { ports: [{ port: 80 }] } });
  assert.deepEqual(pushed, []);
});
