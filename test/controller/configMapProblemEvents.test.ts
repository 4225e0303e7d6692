// Problems of the TCP/UDP services ConfigMaps' entries become Warning Events
// on the ConfigMap when they appear, not again at every sync while they last,
// and again once they went away and came back or the ConfigMap changed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigMapProblemEvents } from '../../src/controller/configMapProblemEvents.js';
import type { ConfigMap } from '../../src/kube/objects.js';

test('each problem is recorded on its ConfigMap once while it lasts', () => {
  const configMaps = new Map<string, ConfigMap>([
    ['ingress/tcp', { metadata: { name: 'tcp', namespace: 'ingress', resourceVersion: '1' } }],
  ]);
  const recorded: string[] = [];
  const events = new ConfigMapProblemEvents(
    { configMap: (key) => configMaps.get(key) },
    {
      recordOnPod: () => assert.fail('not on the pod'),
      recordOnConfigMap: (configMap, type, reason, message) => recorded.push(`${configMap.metadata?.name} ${type} ${reason} ${message}`),
    },
  );
  const gone = { configMap: 'ingress/tcp', reason: 'ServiceNotFound', message: 'TCP port 9001: Service app/gone not found' };
  const other = { configMap: 'ingress/missing', reason: 'NoEndpoints', message: 'x' };
  events.report([gone, other]);
  events.report([gone, other]);
  assert.deepEqual(recorded.splice(0), ['tcp Warning ServiceNotFound TCP port 9001: Service app/gone not found']);
  events.report([]);
  events.report([gone]);
  assert.equal(recorded.splice(0).length, 1, 'again once it went away and came back');
  configMaps.set('ingress/tcp', { metadata: { name: 'tcp', namespace: 'ingress', resourceVersion: '2' } });
  events.report([gone]);
  assert.equal(recorded.splice(0).length, 1, 'again for a new version of the ConfigMap');
});
