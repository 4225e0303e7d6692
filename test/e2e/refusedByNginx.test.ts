// One Ingress nginx refuses never blocks the others, even when Portico's
// validation passed it: here a configuration-snippet the ConfigMap admits and
// nginx does not know. The refused version gets a Rejected Event with nginx's
// message, later changes are loaded, an update nginx refuses leaves the
// previous version serving, and a restart with the bad Ingress present starts
// with everything else.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CoreV1Event } from '@kubernetes/client-node';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { applyIngress, createService, ingress, paths, startBackends, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';
import { startPortico, type PorticoProcess } from '../support/porticoProcess.js';

const SETTINGS = 'refused-settings';
const SNIPPET = 'configuration-snippet';
const WAIT = { timeoutMs: 20_000, intervalMs: 200 };

let cluster: E2eCluster;
let restarted: PorticoProcess | undefined;

before(async () => {
  const namespace = await createTestNamespace((await sharedControlPlane()).adminKubeconfig, 'refused');
  const admin = await startE2eCluster('refused', [`--configmap=${namespace}/${SETTINGS}`], { namespace });
  cluster = admin;
  // The administrator admits snippets: Portico passes them, nginx alone judges them.
  await cluster.core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: SETTINGS }, data: { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' } },
  });
  await createService(cluster, 'web', await startBackends(cluster, 'web'));
});
after(async () => {
  await restarted?.stop();
  await cluster?.close();
});

function hostIngress(name: string, annotations: Record<string, string> = {}, path = '/') {
  return ingress(
    cluster,
    name,
    { rules: [{ host: `${name}.refused.test`, http: { paths: paths([path, 'Prefix', 'web']) } }] },
    annotations,
  );
}

const annotation = (name: string) => `nginx.ingress.kubernetes.io/${name}`;

async function rejectedEvents(name: string): Promise<CoreV1Event[]> {
  const events = await cluster.core.listNamespacedEvent({
    namespace: cluster.namespace,
    fieldSelector: `involvedObject.kind=Ingress,involvedObject.name=${name}`,
  });
  return events.items.filter((event) => event.reason === 'Rejected');
}

async function waitForRejected(name: string, message: RegExp): Promise<CoreV1Event> {
  return eventually(async () => {
    const event = (await rejectedEvents(name)).find((candidate) => message.test(candidate.message ?? ''));
    assert.ok(
      event,
      `no Rejected Event matching ${message} on ${name}: ${JSON.stringify((await rejectedEvents(name)).map((e) => e.message))}`,
    );
    return event;
  }, WAIT);
}

/** The nginx.conf the master runs: a host in it was loaded by a reload, not only routed from live state. */
function runningConf(portico: PorticoProcess): Promise<string> {
  return readFile(join(portico.prefix, 'conf', 'nginx.conf'), 'utf8');
}

async function untilLoaded(portico: PorticoProcess, host: string, path = '/'): Promise<void> {
  await eventually(async () => {
    assert.match(await runningConf(portico), new RegExp(`server_name "${host.replaceAll('.', '\\.')}"`));
    const answer = await httpGet({ port: portico.ports.http, host, path });
    assert.equal(answer.status === 200 ? echoed(answer).service : answer.status, 'web', `${host}${path}`);
  }, WAIT);
}

test("a bad Ingress is refused with nginx's message and later Ingresses are loaded", async () => {
  await applyIngress(cluster, hostIngress('bad', { [annotation(SNIPPET)]: 'bogus_directive on;' }));
  const event = await waitForRejected('bad', /unknown directive "bogus_directive"/);
  assert.match(event.message ?? '', /the Ingress is not served/);
  assert.equal(event.type, 'Warning');

  await applyIngress(cluster, hostIngress('good'));
  await untilLoaded(cluster.portico, 'good.refused.test');
  assert.doesNotMatch(await runningConf(cluster.portico), /bogus_directive|bad\.refused\.test/);
});

test('an update nginx refuses leaves the version it accepted serving', async () => {
  await applyIngress(cluster, hostIngress('kept'));
  await untilLoaded(cluster.portico, 'kept.refused.test');
  await applyIngress(cluster, hostIngress('kept', { [annotation(SNIPPET)]: 'bogus_update on;' }, '/v2'));
  const event = await waitForRejected('kept', /unknown directive "bogus_update"/);
  assert.match(event.message ?? '', /the version nginx last accepted keeps serving/);
  // Still the first version (every path), and changes after it are loaded.
  await applyIngress(cluster, hostIngress('later'));
  await untilLoaded(cluster.portico, 'later.refused.test');
  await untilLoaded(cluster.portico, 'kept.refused.test', '/anything');
  assert.doesNotMatch(await runningConf(cluster.portico), /bogus_update/);
});

test('a restart with refused Ingresses present starts with the others', async () => {
  await cluster.portico.stop();
  restarted = await startPortico(cluster.porticoArgs);
  for (const host of ['good.refused.test', 'later.refused.test']) await untilLoaded(restarted, host);
  // This process never saw nginx accept any version of these two: they are left out.
  const conf = await runningConf(restarted);
  assert.doesNotMatch(conf, /bogus_|bad\.refused\.test|kept\.refused\.test/);
  assert.equal((await httpGet({ port: restarted.ports.http, host: 'kept.refused.test' })).status, 404);
});
