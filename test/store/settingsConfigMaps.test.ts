// The ConfigMaps the global ConfigMap names (add-headers, proxy-set-headers):
// an edit of one must re-sync as one of the global ConfigMap does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.js';
import { ChangeFeed } from '../../src/store/changeFeed.js';
import { TEST_STORE_SETTINGS } from '../support/watchCluster.js';

test('a ConfigMap the settings name counts from the moment the sync loop names it, and no longer once it stops', () => {
  const feed = new ChangeFeed({ quietMs: 0, maxDelayMs: 0 });
  const pushed: string[] = [];
  const push = feed.push.bind(feed);
  feed.push = (key: string) => {
    pushed.push(key);
    push(key);
  };
  const store = new Store({ ...TEST_STORE_SETTINGS, configMaps: ['portico/config'] }, feed);
  let version = 0;
  const edit = (namespace: string, name: string) =>
    store.sink('ConfigMap').upsert({ metadata: { name, namespace, resourceVersion: String(++version) }, data: { 'X-A': String(version) } });

  edit('portico', 'response-headers');
  assert.deepEqual(pushed.splice(0), []);
  store.setSettingsConfigMaps(['portico/response-headers', 'portico/request-headers']);
  edit('portico', 'response-headers');
  edit('portico', 'request-headers');
  edit('portico', 'unrelated');
  assert.deepEqual(pushed.splice(0), ['ConfigMap/portico/response-headers', 'ConfigMap/portico/request-headers']);
  // The global ConfigMap itself still counts.
  edit('portico', 'config');
  assert.deepEqual(pushed.splice(0), ['ConfigMap/portico/config']);
  store.setSettingsConfigMaps([]);
  edit('portico', 'response-headers');
  assert.deepEqual(pushed.splice(0), []);
  assert.equal(store.configMap('portico/response-headers')?.data?.['X-A'], String(version));
});
