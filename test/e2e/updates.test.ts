// Changes to Ingresses and EndpointSlices reach the traffic while Portico and
// its nginx master keep running: nginx reloads, nothing restarts.
import { readFile } from 'node:fs/promises';
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { prefixLayout } from '../../src/dataplane/nginx/process/prefixLayout.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import {
  applyIngress,
  createService,
  ingress,
  paths,
  setEndpoints,
  startBackends,
  startE2eCluster,
  type E2eCluster,
  type PathSpec,
} from '../support/e2eCluster.js';
import type { EchoBackend } from '../support/testNetwork.js';

let cluster: E2eCluster;
let porticoPid: number;
let nginxMasterPid: number;
let scaledBackends: EchoBackend[];

async function readNginxMasterPid(): Promise<number> {
  return Number((await readFile(prefixLayout(cluster.portico.prefix).pidFile, 'utf8')).trim());
}

before(async () => {
  cluster = await startE2eCluster('updates');
  for (const service of ['a', 'b']) await createService(cluster, service, await startBackends(cluster, service));
  scaledBackends = await startBackends(cluster, 'scaled', 3);
  await createService(cluster, 'scaled', scaledBackends.slice(0, 1));
  porticoPid = cluster.portico.process.pid;
  nginxMasterPid = await readNginxMasterPid();
});
after(() => cluster?.close());

afterEach(async () => {
  assert.equal(cluster.portico.process.hasExited(), false, `portico exited:\n${cluster.portico.logTail(30)}`);
  assert.equal(cluster.portico.process.pid, porticoPid);
  assert.equal(await readNginxMasterPid(), nginxMasterPid, 'the nginx master was restarted instead of reloaded');
});

/** Where a request went: the echo service's name, or the HTTP status when no backend answered. */
async function routeOf(host: string, path: string): Promise<string> {
  const result = await httpGet({ port: cluster.portico.ports.http, host, path });
  return result.status === 200 ? echoed(result).service : String(result.status);
}

async function expectRoute(host: string, path: string, expected: string): Promise<void> {
  await eventually(async () => assert.equal(await routeOf(host, path), expected, `${host}${path}`), { timeoutMs: 15_000 });
}

/** An Ingress whose every host gets the same paths. */
function applyHosts(name: string, hosts: readonly string[], ...specs: PathSpec[]): Promise<void> {
  return applyIngress(cluster, ingress(cluster, name, { rules: hosts.map((host) => ({ host, http: { paths: paths(...specs) } })) }));
}

test('a changed path is served, and the old one no longer is', async () => {
  const host = 'moved.updates.test';
  await applyHosts('moved', [host], ['/old', 'Prefix', 'a']);
  await expectRoute(host, '/old', 'a');
  await applyHosts('moved', [host], ['/new', 'Prefix', 'a']);
  await expectRoute(host, '/new', 'a');
  await expectRoute(host, '/old', '404');
});

test('a host added to an Ingress is served', async () => {
  await applyHosts('hosts', ['first.updates.test'], ['/', 'Prefix', 'a']);
  await expectRoute('first.updates.test', '/', 'a');
  assert.equal(await routeOf('second.updates.test', '/'), '404');
  await applyHosts('hosts', ['first.updates.test', 'second.updates.test'], ['/', 'Prefix', 'a']);
  await expectRoute('second.updates.test', '/', 'a');
  await expectRoute('first.updates.test', '/', 'a');
});

test('a deleted Ingress stops routing', async () => {
  const host = 'deleted.updates.test';
  await applyHosts('deleted', [host], ['/', 'Prefix', 'a']);
  await expectRoute(host, '/', 'a');
  await cluster.networking.deleteNamespacedIngress({ namespace: cluster.namespace, name: 'deleted' });
  await expectRoute(host, '/', '404');
});

test("a path's new backend Service takes over", async () => {
  const host = 'switched.updates.test';
  await applyHosts('switched', [host], ['/', 'Prefix', 'a']);
  await expectRoute(host, '/', 'a');
  await applyHosts('switched', [host], ['/', 'Prefix', 'b']);
  await expectRoute(host, '/', 'b');
});

test('endpoints scaled from 1 to 3 all answer, and none left means 503', async () => {
  const host = 'scaled.updates.test';
  const everyInstance = scaledBackends.map((_, index) => `scaled-${index + 1}`);
  /** The instances answering a run of at most 30 requests, which stops once every instance has. */
  const instancesAnswering = async (): Promise<string[]> => {
    const seen = new Set<string>();
    for (let i = 0; i < 30 && seen.size < everyInstance.length; i++) {
      seen.add(echoed(await httpGet({ port: cluster.portico.ports.http, host })).instance);
    }
    return [...seen].sort();
  };
  const expectInstances = (expected: readonly string[]): Promise<void> =>
    eventually(async () => assert.deepEqual(await instancesAnswering(), expected), { timeoutMs: 15_000 });

  await applyHosts('scaled', [host], ['/', 'Prefix', 'scaled']);
  await expectInstances(['scaled-1']);
  await setEndpoints(
    cluster,
    'scaled',
    scaledBackends.map((backend) => backend.address),
  );
  await expectInstances(everyInstance);
  await setEndpoints(cluster, 'scaled', []);
  await expectRoute(host, '/', '503');
});
