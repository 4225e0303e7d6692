import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectCache } from '../../src/store/objectCache.js';
import type { KubeObject } from '../../src/kube/objects.js';

function object(name: string, resourceVersion?: string, extra: Record<string, string> = {}): KubeObject {
  return { metadata: { name, namespace: 'ns', resourceVersion, labels: extra } };
}

function recordingCache() {
  const changes: string[] = [];
  const cache = new ObjectCache<KubeObject>((key, before, after) =>
    changes.push(`${before ? (after ? 'update' : 'delete') : 'add'} ${key}`),
  );
  return { cache, changes };
}

test('replace diffs against the held set: adds, updates, deletes, and nothing for the unchanged', () => {
  const { cache, changes } = recordingCache();
  cache.replace([object('a', '1'), object('b', '1'), object('c', '1')]);
  changes.length = 0;
  cache.replace([object('a', '1'), object('b', '2'), object('d', '1')]);
  assert.deepEqual(changes.sort(), ['add ns/d', 'delete ns/c', 'update ns/b']);
  assert.deepEqual([...cache.values()].map((o) => o.metadata?.name).sort(), ['a', 'b', 'd']);
});

test('objects without resourceVersion (manifests) compare by content', () => {
  const { cache, changes } = recordingCache();
  cache.upsert(object('a', undefined, { x: '1' }));
  cache.upsert(object('a', undefined, { x: '1' }));
  cache.upsert(object('a', undefined, { x: '2' }));
  assert.deepEqual(changes, ['add ns/a', 'update ns/a']);
});

test('removing an unknown object is not a change', () => {
  const { cache, changes } = recordingCache();
  cache.remove(object('ghost', '1'));
  assert.deepEqual(changes, []);
  assert.equal(cache.size, 0);
});
