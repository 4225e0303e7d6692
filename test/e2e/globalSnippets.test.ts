// The ConfigMap's http-snippet, server-snippet and location-snippet through
// the real API server, Portico and nginx: without allow-snippet-annotations
// they change nothing; with it, each takes effect on a host whose Ingress
// has no annotation; a snippet nginx refuses leaves the last good
// configuration serving, with a Rejected Warning on the ConfigMap.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpGetOptions, type HttpResult } from '../support/httpGet.js';
import {
  applyIngress,
  changeAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';

const SETTINGS = 'global-snippet-settings';
const WAIT = { timeoutMs: 20_000, intervalMs: 200 };
const HOST = 'app.global-snippets.test';

/** http-snippet defines a variable location-snippet sends back; server-snippet adds a location. */
const SNIPPETS = {
  'http-snippet': 'map $http_x_probe $global_probe {\n  default "none";\n  "ping" "pong";\n}',
  'server-snippet': 'location = /from-server-snippet {\n  return 200 "server-snippet";\n}',
  'location-snippet': 'add_header X-Global-Probe $global_probe always;',
};

let cluster: E2eCluster;

before(async () => {
  const namespace = await createTestNamespace((await sharedControlPlane()).adminKubeconfig, 'global-snippets');
  cluster = await startE2eCluster('global-snippets', [`--configmap=${namespace}/${SETTINGS}`], { namespace });
  await cluster.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: SETTINGS }, data: {} } });
  await createService(cluster, 'web', await startBackends(cluster, 'web'));
  await applyIngress(cluster, ingress(cluster, 'app', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'web']) } }] }));
});
after(async () => {
  await cluster?.close();
});

async function setSettings(data: Record<string, string>): Promise<void> {
  await cluster.core.replaceNamespacedConfigMap({
    namespace: cluster.namespace,
    name: SETTINGS,
    body: { metadata: { name: SETTINGS }, data },
  });
}

function send(options: Omit<HttpGetOptions, 'port' | 'host'> = {}): Promise<HttpResult> {
  return httpGet({ port: cluster.portico.ports.http, host: HOST, ...options });
}

/** The answers that show each snippet: the probe header of location-snippet (with http-snippet's value) and server-snippet's location. */
async function effects(): Promise<{ probe: unknown; serverSnippet: string }> {
  const probed = await send({ headers: { 'X-Probe': 'ping' } });
  assert.equal(echoed(probed).service, 'web');
  const location = await send({ path: '/from-server-snippet' });
  assert.equal(location.status, 200);
  return { probe: probed.headers['x-global-probe'], serverSnippet: location.body };
}

test('without allow-snippet-annotations the snippets change nothing (the rest of the ConfigMap applies)', async () => {
  // block-user-agents shows when this version of the ConfigMap is loaded.
  await setSettings({ ...SNIPPETS, 'annotations-risk-level': 'Critical', 'block-user-agents': 'LoadedProbe' });
  await eventually(async () => assert.equal((await send({ headers: { 'User-Agent': 'LoadedProbe' } })).status, 403), WAIT);
  const seen = await effects();
  assert.equal(seen.probe, undefined);
  assert.notEqual(seen.serverSnippet, 'server-snippet');
});

test('with allow-snippet-annotations "true", http-, server- and location-snippet take effect', async () => {
  // And the old workers' retirement: the requests after the first right answers (here and in the next test) need the snippets.
  await changeAndReload([cluster.portico], 'the ConfigMap', () => setSettings({ ...SNIPPETS, 'allow-snippet-annotations': 'true' }));
  await eventually(async () => assert.deepEqual(await effects(), { probe: 'pong', serverSnippet: 'server-snippet' }), WAIT);
  assert.equal((await send()).headers['x-global-probe'], 'none');
});

test('a snippet nginx refuses: the last good configuration keeps serving, with a Rejected Warning on the ConfigMap', async () => {
  await setSettings({ ...SNIPPETS, 'allow-snippet-annotations': 'true', 'http-snippet': 'bogus_http_directive on;' });
  await eventually(async () => {
    const events = await cluster.core.listNamespacedEvent({
      namespace: cluster.namespace,
      fieldSelector: `involvedObject.kind=ConfigMap,involvedObject.name=${SETTINGS}`,
    });
    const messages = events.items.filter((event) => event.type === 'Warning' && event.reason === 'Rejected').map((event) => event.message);
    assert.ok(
      messages.some((message) => /unknown directive "bogus_http_directive"/.test(message ?? '')),
      JSON.stringify(messages),
    );
  }, WAIT);
  assert.deepEqual(await effects(), { probe: 'pong', serverSnippet: 'server-snippet' });
  // A corrected ConfigMap is loaded again.
  await setSettings({ ...SNIPPETS, 'allow-snippet-annotations': 'true', 'location-snippet': 'add_header X-Global-Probe "fixed" always;' });
  await eventually(async () => assert.equal((await effects()).probe, 'fixed'), WAIT);
});
