// stream-snippet through the real API server, Portico and nginx: the
// ConfigMap's key and the Ingress annotation each add a stream server (on a
// free loopback port) that proxies to an echo backend in the test network, so
// bytes round-trip through nginx's stream block; without
// allow-snippet-annotations neither is rendered; a stream snippet nginx
// refuses is contained to its Ingress (a Rejected Event on it) while the rest
// is served; and stream connections move the nginx connection metrics, as
// they do in ingress-nginx (stub_status counts every connection nginx accepts).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { parsePrometheusText, valueOf } from '../support/prometheusText.js';
import {
  applyIngress,
  changeAndReload,
  createService,
  ECHO_PORT,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import type { EchoBackend } from '../support/testNetwork.js';

const SETTINGS = 'stream-snippet-settings';
const WAIT = { timeoutMs: 30_000, intervalMs: 250 };
const HOST = 'app.stream-snippets.test';
const ADMITTED = { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' };

let cluster: E2eCluster;
let backend: EchoBackend;
let globalPort: number;
let annotationPort: number;
let refusedPort: number;

before(async () => {
  const namespace = await createTestNamespace((await sharedControlPlane()).adminKubeconfig, 'stream-snippets');
  cluster = await startE2eCluster('stream-snippets', [`--configmap=${namespace}/${SETTINGS}`, '--enable-metrics'], { namespace });
  await cluster.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: SETTINGS }, data: {} } });
  const backends = await startBackends(cluster, 'web');
  backend = backends[0]!;
  await createService(cluster, 'web', backends);
  [globalPort, annotationPort, refusedPort] = (await freeLoopbackPorts(3)) as [number, number, number];
  await applyIngress(cluster, ingress(cluster, 'app', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'web']) } }] }));
});
after(async () => {
  await cluster?.close();
});

/** A stream server proxying a loopback port to the echo backend (its address is an IP: the snippet is nginx's own text). */
const streamServer = (port: number, extra = '') =>
  `server {\n    listen 127.0.0.1:${port};\n    proxy_pass ${backend.address}:${ECHO_PORT};\n${extra}}\n`;

async function setSettings(data: Record<string, string>): Promise<void> {
  await cluster.core.replaceNamespacedConfigMap({
    namespace: cluster.namespace,
    name: SETTINGS,
    body: { metadata: { name: SETTINGS }, data },
  });
}

function streamSnippetIngress(name: string, snippet: string) {
  const annotations = { 'nginx.ingress.kubernetes.io/stream-snippet': snippet };
  return ingress(
    cluster,
    name,
    { rules: [{ host: `${name}.stream-snippets.test`, http: { paths: paths(['/', 'Prefix', 'web']) } }] },
    annotations,
  );
}

/** An HTTP request written as raw bytes on a TCP connection to `port`, and every byte read back until the backend closes. */
function roundTrip(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer through port ${port} within 5s`)));
    socket.on('connect', () => socket.write(`GET /through-stream HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

/** The echo backend answered the bytes sent through `port`: its JSON names the path the request carried. */
async function assertRoundTrip(port: number): Promise<void> {
  const answer = await roundTrip(port);
  assert.match(answer, /^HTTP\/1\.1 200 /);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { service: string; path: string };
  assert.deepEqual([body.service, body.path], ['web', '/through-stream']);
}

async function assertRefused(port: number): Promise<void> {
  await assert.rejects(roundTrip(port), /ECONNREFUSED/);
}

async function warnings(kind: 'Ingress' | 'ConfigMap', name: string): Promise<string[]> {
  const events = await cluster.core.listNamespacedEvent({
    namespace: cluster.namespace,
    fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}`,
  });
  return events.items.filter((event) => event.type === 'Warning' && event.reason === 'Rejected').map((event) => event.message ?? '');
}

test('without allow-snippet-annotations neither is rendered: the Ingress is refused, the ConfigMap key left out', async () => {
  // block-user-agents shows when this version of the ConfigMap is loaded.
  await setSettings({ 'stream-snippet': streamServer(globalPort), 'annotations-risk-level': 'Critical', 'block-user-agents': 'Probe1' });
  await applyIngress(cluster, streamSnippetIngress('annotated', streamServer(annotationPort)));
  await eventually(async () => {
    assert.equal((await httpGet({ port: cluster.portico.ports.http, host: HOST, headers: { 'User-Agent': 'Probe1' } })).status, 403);
    assert.ok((await warnings('Ingress', 'annotated')).some((message) => /stream-snippet: snippet annotations are refused/.test(message)));
  }, WAIT);
  await assertRefused(globalPort);
  await assertRefused(annotationPort);
});

test("admitted, the ConfigMap's and the Ingress's stream servers each proxy bytes to the backend and back", async () => {
  await setSettings({ 'stream-snippet': streamServer(globalPort), ...ADMITTED });
  await eventually(async () => {
    await assertRoundTrip(globalPort);
    await assertRoundTrip(annotationPort);
  }, WAIT);
  // The http block still serves.
  assert.equal(echoed(await httpGet({ port: cluster.portico.ports.http, host: HOST })).service, 'web');
});

test("a stream snippet nginx refuses is contained to its Ingress: a Rejected Event with nginx's message, the rest served", async () => {
  await applyIngress(cluster, streamSnippetIngress('refused', streamServer(refusedPort, '    bogus_stream_directive on;\n')));
  await eventually(async () => {
    const messages = await warnings('Ingress', 'refused');
    assert.ok(
      messages.some((message) => /unknown directive "bogus_stream_directive"/.test(message)),
      JSON.stringify(messages),
    );
  }, WAIT);
  // A later change still loads, the older snippets still serve, and the refused one never did.
  await applyIngress(
    cluster,
    ingress(cluster, 'later', { rules: [{ host: 'later.stream-snippets.test', http: { paths: paths(['/', 'Prefix', 'web']) } }] }),
  );
  await eventually(
    async () => assert.equal((await httpGet({ port: cluster.portico.ports.http, host: 'later.stream-snippets.test' })).status, 200),
    WAIT,
  );
  await assertRoundTrip(globalPort);
  await assertRoundTrip(annotationPort);
  await assertRefused(refusedPort);
});

test('the stream log: log-format-stream at stream-access-log-path, one line per connection; none with disable-stream-access-log', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-stream-log-'));
  const file = join(dir, 'stream.log');
  const lines = async () => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
  try {
    const logging = {
      'stream-access-log-path': file,
      'log-format-stream': 'stream-probe $protocol $status $bytes_received [$proxy_upstream_name]',
    };
    await setSettings({ 'stream-snippet': streamServer(globalPort), ...ADMITTED, ...logging });
    // Each connection writes its line when it closes; the first ones may still reach the previous workers.
    await eventually(async () => {
      await assertRoundTrip(globalPort);
      assert.ok(
        (await lines()).some((line) => /^stream-probe TCP 200 [1-9][0-9]* \[\]$/.test(line)),
        JSON.stringify(await lines()),
      );
    }, WAIT);
    // And the old workers' retirement: one of them would still take the connections below and log them.
    await changeAndReload([cluster.portico], 'the ConfigMap', () =>
      setSettings({
        'stream-snippet': streamServer(globalPort),
        ...ADMITTED,
        ...logging,
        'disable-stream-access-log': 'true',
        'block-user-agents': 'Probe2',
      }),
    );
    await eventually(
      async () =>
        assert.equal((await httpGet({ port: cluster.portico.ports.http, host: HOST, headers: { 'User-Agent': 'Probe2' } })).status, 403),
      WAIT,
    );
    // The old workers may still be closing their connections: wait until the file stops growing, then connect again.
    const settled = await eventually(async () => {
      const count = (await lines()).length;
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal((await lines()).length, count);
      return count;
    }, WAIT);
    assert.ok((await lines()).every((line) => line.startsWith('stream-probe ')));
    for (let i = 0; i < 3; i++) await assertRoundTrip(globalPort);
    // Logging again under another format: its line shows the log is written again, and the connections before it wrote none.
    await setSettings({
      'stream-snippet': streamServer(globalPort),
      ...ADMITTED,
      ...logging,
      'log-format-stream': 'stream-probe-again $protocol',
    });
    await eventually(async () => {
      await assertRoundTrip(globalPort);
      assert.ok((await lines()).includes('stream-probe-again TCP'));
    }, WAIT);
    assert.equal((await lines()).filter((line) => line.startsWith('stream-probe ')).length, settled);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('stream connections are counted by the nginx connection metrics (stub_status): active while open, accepted in total', async () => {
  const scrape = async () => parsePrometheusText((await httpGet({ port: cluster.portico.ports.healthz, path: '/metrics' })).body);
  const active = (samples: ReturnType<typeof parsePrometheusText>) =>
    valueOf(samples, 'nginx_ingress_controller_nginx_process_connections', { state: 'active' });
  const accepted = (samples: ReturnType<typeof parsePrometheusText>) =>
    valueOf(samples, 'nginx_ingress_controller_nginx_process_connections_total', { state: 'accepted' });
  const HELD = 5;
  const baseline = await eventually(async () => scrape(), WAIT);
  const sockets = await Promise.all(
    Array.from(
      { length: HELD },
      () =>
        new Promise<ReturnType<typeof connect>>((resolve, reject) => {
          const socket = connect({ host: '127.0.0.1', port: globalPort }, () => resolve(socket));
          socket.on('error', reject);
        }),
    ),
  );
  try {
    // Each held connection is proxied to the backend (an idle HTTP connection it keeps open): nginx counts it as active.
    await eventually(async () => {
      const samples = await scrape();
      assert.ok(active(samples) >= active(baseline) + HELD, `active ${active(samples)}, before ${active(baseline)}`);
      assert.ok(accepted(samples) >= accepted(baseline) + HELD, `accepted ${accepted(samples)}, before ${accepted(baseline)}`);
    }, WAIT);
  } finally {
    for (const socket of sockets) socket.destroy();
  }
  await eventually(async () => assert.ok(active(await scrape()) < active(baseline) + HELD), WAIT);
});
