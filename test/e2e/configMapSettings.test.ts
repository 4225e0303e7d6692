// The global ConfigMap as an operator edits it, through the real API server,
// Portico and nginx: a refused value keeps its key's default while the rest
// applies, refused values and ignored keys are Warnings on the ConfigMap, a
// change of live state only (load-balance) does not reload nginx, and a change
// of nginx.conf reloads it once.
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import type { CoreV1Event } from '@kubernetes/client-node';
import { applyIngressAndReload, createService, ingress, paths, startBackends, type E2eCluster } from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { putSettings, SETTINGS_CONFIGMAP, startSettingsCluster } from '../support/settingsCluster.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { appliedConfigurations, readFrom } from '../support/porticoLog.js';
import { createClusterIpService } from '../support/clusterIpService.js';
import type { EchoBackend } from '../support/testNetwork.js';

const HOST = 'settings.test';
const VIA_CLUSTER = 'viacluster.settings.test';
const WAIT = { timeoutMs: 20_000, intervalMs: 200 };

let cluster: E2eCluster;
let endpoints: EchoBackend[];

before(async () => {
  cluster = await startSettingsCluster('settings', {
    'proxy-body-size': '1k',
    'proxy-read-timeout': 'soon',
    'not-a-key': 'x',
    'enable-opentelemetry': 'true',
  });
  endpoints = await startBackends(cluster, 'echo', 2);
  await createService(cluster, 'echo', endpoints);
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'echo', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'echo']) } }] }),
  );
  await eventually(async () => assert.equal(await postStatus(512), 200), WAIT);
});
after(() => cluster?.close());

async function configMapWarnings(): Promise<CoreV1Event[]> {
  const events = await cluster.core.listNamespacedEvent({
    namespace: cluster.namespace,
    fieldSelector: `involvedObject.kind=ConfigMap,involvedObject.name=${SETTINGS_CONFIGMAP}`,
  });
  return events.items.filter((event) => event.type === 'Warning');
}

/** The status of a POST of `bytes` bytes, once the host is served. */
async function postStatus(bytes: number, host = HOST): Promise<number> {
  const answer = await httpGet({ port: cluster.portico.ports.http, host, path: '/', method: 'POST', body: 'x'.repeat(bytes) });
  if (answer.status === 200) assert.ok(echoed(answer).service, 'an echo backend answered');
  return answer.status;
}

async function instanceOf(host: string): Promise<string | undefined> {
  const answer = await httpGet({ port: cluster.portico.ports.http, host, path: '/' });
  return answer.status === 200 ? echoed(answer).instance : `status ${answer.status}`;
}

/** What the sync loop applied since `offset` bytes of its log. */
async function appliedSince(offset: number): Promise<{ lines: string[]; reloads: number }> {
  return appliedConfigurations(await readFrom(cluster.portico.process.logPath, offset));
}

test('a refused value keeps its default, the rest of the ConfigMap applies, and each problem is a Warning on the ConfigMap', async () => {
  // proxy-body-size 1k applies although proxy-read-timeout next to it is refused.
  assert.equal(await postStatus(2048), 413);
  await eventually(async () => {
    const messages = (await configMapWarnings()).map((event) => `${event.reason}: ${event.message}`).sort();
    assert.deepEqual(messages, [
      "IgnoredKey: ConfigMap key enable-opentelemetry: Debian 12's nginx has no OpenTelemetry module, so Portico cannot apply it; ignored",
      'IgnoredKey: ConfigMap key not-a-key: not a ConfigMap key of ingress-nginx v1.15.1; ignored',
      'InvalidValue: ConfigMap key proxy-read-timeout: invalid value "soon"; expected an integer of seconds from 1 to 2147483; keeping the default',
    ]);
  }, WAIT);
});

test('a change of live state only (service-upstream) does not reload nginx; a change of nginx.conf reloads it once', async () => {
  const base = { 'proxy-body-size': '1k' };
  await createClusterIpService(cluster, 'viacluster', [endpoints[0]?.address ?? '']);
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'viacluster', { rules: [{ host: VIA_CLUSTER, http: { paths: paths(['/', 'Prefix', 'viacluster']) } }] }),
  );
  await putSettings(cluster, base);
  await eventually(async () => assert.equal(await instanceOf(VIA_CLUSTER), 'echo-1'), WAIT);
  let offset = (await stat(cluster.portico.process.logPath)).size;

  // The backend becomes the Service's ClusterIP: endpoints are live state, pushed to the balancer.
  await putSettings(cluster, { ...base, 'service-upstream': 'true' });
  await eventually(async () => assert.equal(await instanceOf(VIA_CLUSTER), 'viacluster-clusterip'), WAIT);
  const live = await appliedSince(offset);
  assert.ok(live.lines.length > 0, 'the change was applied');
  assert.equal(live.reloads, 0, `service-upstream is pushed, not rendered: ${live.lines.join('\n')}`);

  offset = (await stat(cluster.portico.process.logPath)).size;
  await putSettings(cluster, { ...base, 'service-upstream': 'true', 'proxy-body-size': '4k' });
  await eventually(async () => assert.equal(await postStatus(2048, VIA_CLUSTER), 200), WAIT);
  // The new workers may answer before Portico has logged the reload they came from.
  await eventually(async () => assert.ok((await appliedSince(offset)).reloads > 0, 'the reload is logged'), WAIT);
  const rendered = await appliedSince(offset);
  assert.equal(rendered.reloads, 1, `one reload for one rendered change: ${rendered.lines.join('\n')}`);
});
