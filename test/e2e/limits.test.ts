// Rate and connection limits through the real API server, Portico, nginx and
// slow echo backends: limit-connections, limit-rps with its burst, the
// ConfigMap's status code, limit-allowlist, and an Ingress without limits on
// the same host. Requests come from 127.0.0.1, one connection each.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import {
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
  type PathSpec,
} from '../support/e2eCluster.js';
import { echoed, httpGet } from '../support/httpGet.js';

const SETTINGS_NAME = 'limits-settings';
/** limit-req-status-code in the ConfigMap; limit-conn-status-code stays at its default. */
const REQUEST_LIMIT_STATUS = 429;
const CONNECTION_LIMIT_STATUS = 503;

let cluster: E2eCluster;

before(async () => {
  const plane = await sharedControlPlane();
  const namespace = await createTestNamespace(plane.adminKubeconfig, 'limits');
  const admin = new KubeConfig();
  admin.loadFromFile(plane.adminKubeconfig);
  // There before Portico starts, so its first configuration already has the status code.
  await admin.makeApiClient(CoreV1Api).createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: SETTINGS_NAME }, data: { 'limit-req-status-code': String(REQUEST_LIMIT_STATUS) } },
  });
  cluster = await startE2eCluster('limits', [`--configmap=${namespace}/${SETTINGS_NAME}`], { namespace });
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
});
after(() => cluster?.close());

const hostOf = (name: string): string => `${name}.limits.test`;

/** An Ingress named `name` on `host` with these nginx.ingress.kubernetes.io/ annotations, served once nginx has reloaded. */
async function applyLimited(name: string, host: string, annotations: Record<string, string>, spec: PathSpec = ['/', 'Prefix', 'echo']) {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
  await applyIngressAndReload(cluster, ingress(cluster, name, { rules: [{ host, http: { paths: paths(spec) } }] }, prefixed));
}

/** `count` requests at once, each on its own connection; their statuses and how long the whole burst took. */
async function burst(host: string, path: string, count: number): Promise<{ statuses: number[]; seconds: number }> {
  const started = process.hrtime.bigint();
  const results = await Promise.all(
    Array.from({ length: count }, () => httpGet({ port: cluster.portico.ports.http, host, path, timeoutMs: 15_000 })),
  );
  for (const result of results) if (result.status === 200) assert.equal(echoed(result).service, 'echo');
  return { statuses: results.map((result) => result.status), seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

const countOf = (statuses: readonly number[], status: number): number => statuses.filter((candidate) => candidate === status).length;

test(`limit-connections: 2 lets 2 of 5 concurrent slow requests through; the others get ${CONNECTION_LIMIT_STATUS} at once`, async () => {
  await applyLimited('connections', hostOf('connections'), { 'limit-connections': '2' });
  // Each held 2 s by the backend: the 2 admitted ones still run when the other 3 arrive.
  const { statuses } = await burst(hostOf('connections'), '/delay/2000', 5);
  assert.deepEqual([countOf(statuses, 200), countOf(statuses, CONNECTION_LIMIT_STATUS)], [2, 3], JSON.stringify(statuses));
  // Once they are done, the connections are free again.
  assert.deepEqual((await burst(hostOf('connections'), '/', 2)).statuses, [200, 200]);
});

test(`limit-rps: a burst gets through rate × limit-burst-multiplier + 1 (plus what the rate refills meanwhile), the rest ${REQUEST_LIMIT_STATUS}; another Ingress's path on the host is not limited`, async () => {
  const rate = 2;
  const multiplier = 3;
  const host = hostOf('rps');
  await applyLimited('rps-free', host, {}, ['/free', 'Prefix', 'echo']);
  await applyLimited('rps', host, { 'limit-rps': String(rate), 'limit-burst-multiplier': String(multiplier) });
  const count = 30;
  const [limited, free] = await Promise.all([burst(host, '/', count), burst(host, '/free', count)]);
  // nginx admits a request while the client's excess stays within the burst: the first of a fresh zone, then `burst`
  // more at once (nodelay), then `rate` per second as the excess drains while the burst lasts.
  const admitted = countOf(limited.statuses, 200);
  const least = rate * multiplier + 1;
  const most = least + Math.ceil(rate * limited.seconds);
  assert.ok(admitted >= least && admitted <= most, `${admitted} admitted, expected ${least}..${most} in ${limited.seconds} s`);
  assert.equal(countOf(limited.statuses, REQUEST_LIMIT_STATUS), count - admitted, JSON.stringify(limited.statuses));
  assert.equal(countOf(free.statuses, 200), count, JSON.stringify(free.statuses));
});

test('limit-allowlist: an allowlisted client is never limited; the alias limit-whitelist too', async () => {
  for (const [name, allowlistName] of [
    ['allowlisted', 'limit-allowlist'],
    ['whitelisted', 'limit-whitelist'],
  ] as const) {
    await applyLimited(name, hostOf(name), { 'limit-rps': '1', 'limit-connections': '1', [allowlistName]: '10.0.0.0/8, 127.0.0.1/32' });
    const { statuses } = await burst(hostOf(name), '/delay/200', 20);
    assert.equal(countOf(statuses, 200), 20, `${name}: ${JSON.stringify(statuses)}`);
  }
  // The same limits with an allowlist that does not name the client do refuse (the check above can fail).
  await applyLimited('not-allowlisted', hostOf('not-allowlisted'), { 'limit-rps': '1', 'limit-allowlist': '10.0.0.0/8' });
  assert.ok(countOf((await burst(hostOf('not-allowlisted'), '/', 20)).statuses, REQUEST_LIMIT_STATUS) > 0);
});
