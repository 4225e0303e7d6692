// Values that pass Kubernetes' validation but nginx or the Lua refuses must
// stay with the object that carries them: an EndpointSlice port 0 is left out
// (the Lua would refuse the whole backends document), an Ingress asking for a
// body size nginx -t refuses is refused itself (with an Event), and in both
// cases Ingresses created afterwards are served, through a reload.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoreV1Event } from '@kubernetes/client-node';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import {
  applyIngress,
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';

let cluster: E2eCluster;

before(async () => {
  cluster = await startE2eCluster('values');
  for (const service of ['mixed', 'later', 'sized', 'after']) await createService(cluster, service, await startBackends(cluster, service));
});
after(() => cluster?.close());

/** Where a request went: the echo service's name, or the HTTP status when no backend answered. */
async function routeOf(host: string): Promise<string> {
  const result = await httpGet({ port: cluster.portico.ports.http, host, path: '/' });
  return result.status === 200 ? echoed(result).service : String(result.status);
}

function hostIngress(name: string, service: string, annotations: Record<string, string> = {}) {
  return ingress(
    cluster,
    name,
    { rules: [{ host: `${name}.values.test`, http: { paths: paths(['/', 'Prefix', service]) } }] },
    annotations,
  );
}

test('an EndpointSlice with port 0 next to a good one: the good endpoints serve, and later Ingresses are served', async () => {
  // Kubernetes does not range-check EndpointSlice ports.
  await cluster.discovery.createNamespacedEndpointSlice({
    namespace: cluster.namespace,
    body: {
      metadata: { name: 'mixed-zero', labels: { 'kubernetes.io/service-name': 'mixed' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [await cluster.network.addAddress()], conditions: { ready: true } }],
      ports: [{ name: 'http', port: 0, protocol: 'TCP' }],
    },
  });
  await applyIngressAndReload(cluster, hostIngress('mixed', 'mixed'));
  await eventually(async () => assert.equal(await routeOf('mixed.values.test'), 'mixed'), { timeoutMs: 15_000 });
  await applyIngressAndReload(cluster, hostIngress('later', 'later'));
  await eventually(async () => assert.equal(await routeOf('later.values.test'), 'later'), { timeoutMs: 15_000 });
  // Every request to the mixed host reaches its good endpoint, none the port-0 one.
  for (let i = 0; i < 10; i++) assert.equal(await routeOf('mixed.values.test'), 'mixed');
  assert.match(cluster.portico.logTail(200), /EndpointSlice [^ ]+\/mixed-zero: port \\?"0\\?" is not from 1 to 65535/);
});

test('proxy-body-size 9999999999g refuses its Ingress with an Event; an Ingress created afterwards is served after a reload', async () => {
  await applyIngress(cluster, hostIngress('sized', 'sized', { 'nginx.ingress.kubernetes.io/proxy-body-size': '9999999999g' }));
  const events = await eventually(
    async () => {
      const list = await cluster.core.listNamespacedEvent({
        namespace: cluster.namespace,
        fieldSelector: 'involvedObject.kind=Ingress,involvedObject.name=sized',
      });
      const rejected = list.items.filter((event: CoreV1Event) => event.reason === 'Rejected');
      assert.ok(rejected.length > 0, JSON.stringify(list.items.map((event) => event.reason)));
      return rejected;
    },
    { timeoutMs: 15_000, intervalMs: 200 },
  );
  assert.match(events[0]?.message ?? '', /proxy-body-size: invalid value "9999999999g"/);
  // Waits for a reload: before it, a new host is answered from live state, which a failing nginx -t does not stop.
  await applyIngressAndReload(cluster, hostIngress('after', 'after'));
  await eventually(async () => assert.equal(await routeOf('after.values.test'), 'after'), { timeoutMs: 15_000 });
  assert.equal(await routeOf('sized.values.test'), '404', 'the refused Ingress is not served');
  assert.equal(cluster.portico.process.hasExited(), false);
});
