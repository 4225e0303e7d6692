// The recorder against a real kube-apiserver, as the least-privileged
// controller identity of deploy/rbac.yaml: Events appear on the Ingress and on
// the controller pod, repeats become counts, and a burst is cut by the spam filter.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CoreV1Api, KubeConfig, NetworkingV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { pino } from 'pino';
import { EventRecorder } from '../../../src/controller/events/eventRecorder.js';
import { KubernetesEventSink } from '../../../src/controller/events/eventSink.js';
import { KubeHttpClient } from '../../../src/kube/kubeHttpClient.js';
import type { Ingress } from '../../../src/kube/objects.js';
import { controllerPod } from '../../../src/kube/controllerPod.js';
import { silentLogger } from '../../../src/log/logger.js';
import { createTestNamespace, sharedControlPlane } from '../../support/controlPlane.js';

let core: CoreV1Api;
let networking: NetworkingV1Api;
let controller: KubeConfig;
let controllerClient: KubeHttpClient;
let namespace: string;

before(async () => {
  const plane = await sharedControlPlane();
  const admin = new KubeConfig();
  admin.loadFromFile(plane.adminKubeconfig);
  core = admin.makeApiClient(CoreV1Api);
  networking = admin.makeApiClient(NetworkingV1Api);
  controller = new KubeConfig();
  controller.loadFromFile(plane.controllerKubeconfig);
  controllerClient = await KubeHttpClient.fromKubeConfig(controller);
  namespace = await createTestNamespace(plane.adminKubeconfig, 'events');
});

after(() => controllerClient?.close());

function recorder(options: Partial<ConstructorParameters<typeof EventRecorder>[0]> = {}): EventRecorder {
  return new EventRecorder({ logger: silentLogger(), sink: new KubernetesEventSink(controllerClient), ...options });
}

/** Creates an Ingress and returns it as the store holds it (plain JSON). */
async function createIngress(name: string): Promise<Ingress> {
  const created = await networking.createNamespacedIngress({
    namespace,
    body: { metadata: { name }, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } },
  });
  return JSON.parse(JSON.stringify(created)) as Ingress;
}

/** A later version of the same Ingress (as an update would bring). */
async function touch(ingress: Ingress): Promise<Ingress> {
  const name = ingress.metadata?.name ?? '';
  const updated = await networking.patchNamespacedIngress({
    namespace,
    name,
    body: [{ op: 'add', path: '/metadata/labels', value: { touched: randomUUID() } }],
  });
  return JSON.parse(JSON.stringify(updated)) as Ingress;
}

/** Events on an object as `kubectl describe` finds them: by name, kind and uid. */
async function eventsOn(kind: string, objectNamespace: string, name: string, uid: string | undefined): Promise<CoreV1Event[]> {
  const selector = [`involvedObject.kind=${kind}`, `involvedObject.name=${name}`, ...(uid ? [`involvedObject.uid=${uid}`] : [])].join(',');
  return (await core.listNamespacedEvent({ namespace: objectNamespace, fieldSelector: selector })).items;
}

test('an Ingress Event appears, and the same Event on a new version becomes a count on one object', async () => {
  const events = recorder();
  let ingress = await createIngress('synced');
  events.record(ingress, 'Normal', 'Sync', 'Scheduled for sync');
  events.record(ingress, 'Normal', 'Sync', 'Scheduled for sync'); // same version: not news
  ingress = await touch(ingress);
  events.record(ingress, 'Normal', 'Sync', 'Scheduled for sync');
  events.record(ingress, 'Warning', 'MissingTLSSecret', 'secret x/y not found');
  await events.flush();

  const found = await eventsOn('Ingress', namespace, 'synced', ingress.metadata?.uid);
  const summary = found.map((event) => `${event.type} ${event.reason} x${event.count} ${event.message}`).sort();
  assert.deepEqual(summary, ['Normal Sync x2 Scheduled for sync', 'Warning MissingTLSSecret x1 secret x/y not found']);
  const sync = found.find((event) => event.reason === 'Sync')!;
  assert.equal(sync.source?.component, 'portico');
  assert.ok(new Date(sync.lastTimestamp!).getTime() >= new Date(sync.firstTimestamp!).getTime());
});

test('a burst on one Ingress is cut at the spam filter burst, while another Ingress is unaffected', async () => {
  const events = recorder({ limits: { burst: 25, refillMs: 5 * 60_000, cacheSize: 4096 } });
  const noisy = await createIngress('noisy');
  const quiet = await createIngress('quiet');
  for (let i = 0; i < 100; i++) events.record(noisy, 'Warning', 'AnnotationWarning', `problem number ${i}`);
  for (let i = 0; i < 3; i++) events.record(quiet, 'Warning', 'AnnotationWarning', `problem number ${i}`);
  await events.flush();

  const onNoisy = await eventsOn('Ingress', namespace, 'noisy', noisy.metadata?.uid);
  assert.equal(onNoisy.length, 25);
  assert.deepEqual(
    onNoisy.map((event) => event.message).sort(),
    Array.from({ length: 25 }, (_, i) => `problem number ${i}`).sort(),
    'the first 25 pass, the rest are dropped',
  );
  assert.equal((await eventsOn('Ingress', namespace, 'quiet', quiet.metadata?.uid)).length, 3);
});

test('a Sync Event for each of more Ingresses than the write queue holds (a start) are all written, with no warning', async () => {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  const events = recorder({ maxQueuedWrites: 10, logger });
  const prefix = `start-${randomUUID().slice(0, 8)}`;
  // Thirty Ingresses at once; no object needs to exist for an Event about it.
  for (let i = 0; i < 30; i++) {
    events.record({ metadata: { namespace, name: `${prefix}-${i}`, resourceVersion: '1' } }, 'Normal', 'Sync', 'Scheduled for sync');
  }
  await events.flush();
  assert.deepEqual(await writtenFor(prefix), Array.from({ length: 30 }, (_, i) => `${prefix}-${i}`).sort());
  assert.deepEqual(
    lines.filter((line) => line.level >= pino.levels.values['warn']!).map((line) => line.msg),
    [],
  );
});

test('Events beyond the write queue are dropped rather than held in memory', async () => {
  const events = recorder({ maxQueuedWrites: 10 });
  const prefix = `queued-${randomUUID().slice(0, 8)}`;
  // Thirty Events on one Ingress at once: the queue holds 10, plus one for the Ingress.
  for (let i = 0; i < 30; i++) {
    events.record({ metadata: { namespace, name: prefix, resourceVersion: '1' } }, 'Warning', 'AnnotationWarning', `problem ${i}`);
  }
  await events.flush();
  events.record({ metadata: { namespace, name: `${prefix}-late`, resourceVersion: '1' } }, 'Normal', 'Sync', 'Scheduled for sync');
  await events.flush();
  assert.equal((await writtenFor(prefix)).filter((name) => name === prefix).length, 11, 'the first 11');
  assert.ok((await writtenFor(prefix)).includes(`${prefix}-late`), 'then room again');
});

/** The names of the objects with Events written whose names start with `prefix`, sorted. */
async function writtenFor(prefix: string): Promise<string[]> {
  return (await core.listNamespacedEvent({ namespace })).items
    .map((event) => event.involvedObject.name ?? '')
    .filter((name) => name.startsWith(prefix))
    .sort();
}

test('an Event that expired is created again rather than patched', async () => {
  const events = recorder();
  const ingress = await createIngress('expired');
  events.record(ingress, 'Normal', 'Sync', 'Scheduled for sync');
  await events.flush();
  const [first] = await eventsOn('Ingress', namespace, 'expired', ingress.metadata?.uid);
  assert.ok(first?.metadata.name);
  await core.deleteNamespacedEvent({ namespace, name: first.metadata.name });
  events.record(await touch(ingress), 'Normal', 'Sync', 'Scheduled for sync');
  await events.flush();
  const again = await eventsOn('Ingress', namespace, 'expired', ingress.metadata?.uid);
  assert.equal(again.length, 1);
  assert.notEqual(again[0]?.metadata.name, first.metadata.name);
  assert.equal(again[0]?.count, 1);
});

test('RELOAD Events go on the controller pod named by POD_NAME and POD_NAMESPACE, with its uid', async () => {
  const podName = `portico-${randomUUID().slice(0, 8)}`;
  const pod = await core.createNamespacedPod({
    namespace: 'portico',
    body: {
      metadata: { name: podName },
      spec: { serviceAccountName: 'portico', automountServiceAccountToken: false, containers: [{ name: 'controller', image: 'portico' }] },
    },
  });
  try {
    const reference = await controllerPod(controller, { POD_NAME: podName, POD_NAMESPACE: 'portico' }, silentLogger());
    assert.deepEqual(reference, { namespace: 'portico', name: podName, uid: pod.metadata?.uid });
    const events = recorder({ pod: reference });
    events.recordOnPod('Normal', 'RELOAD', 'Backend successfully reloaded');
    events.recordOnPod('Warning', 'RELOAD', `Error reloading NGINX: ${'x'.repeat(5000)}`);
    events.recordOnPod('Normal', 'RELOAD', 'Backend successfully reloaded');
    await events.flush();
    const found = await eventsOn('Pod', 'portico', podName, pod.metadata?.uid);
    const summary = found.map((event) => `${event.type} x${event.count} ${event.message?.length}`).sort();
    assert.deepEqual(summary, ['Normal x2 29', 'Warning x1 1024'], 'repeats count up; a long nginx error is cut to 1 kB');
  } finally {
    await core.deleteNamespacedPod({ namespace: 'portico', name: podName });
  }
});

test('without POD_NAME the pod is unknown and nothing is written for it', async () => {
  assert.equal(await controllerPod(controller, { POD_NAMESPACE: 'portico' }, silentLogger()), undefined);
});
