// server-snippet through the real API server, Portico and nginx: refused
// while the ConfigMap does not admit snippets (the Ingress is not served, with
// a Rejected Event), written into the host's server block once it does (its
// header is on every answer of the host), the host's oldest Ingress deciding;
// a snippet nginx refuses is contained to its Ingress.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CoreV1Event } from '@kubernetes/client-node';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpResult } from '../support/httpGet.js';
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

const SETTINGS = 'server-snippet-settings';
const WAIT = { timeoutMs: 20_000, intervalMs: 200 };
const SNIPPET = 'add_header X-Server-Snippet "older" always;';

let cluster: E2eCluster;

before(async () => {
  const namespace = await createTestNamespace((await sharedControlPlane()).adminKubeconfig, 'server-snippet');
  cluster = await startE2eCluster('server-snippet', [`--configmap=${namespace}/${SETTINGS}`], { namespace });
  await cluster.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: SETTINGS }, data: {} } });
  await createService(cluster, 'web', await startBackends(cluster, 'web'));
});
after(async () => {
  await cluster?.close();
});

const hostOf = (name: string): string => `${name}.server-snippet.test`;

function snippetIngress(name: string, host: string, path: string, snippet?: string) {
  const annotations: Record<string, string> = snippet === undefined ? {} : { 'nginx.ingress.kubernetes.io/server-snippet': snippet };
  return ingress(cluster, name, { rules: [{ host: hostOf(host), http: { paths: paths([path, 'Prefix', 'web']) } }] }, annotations);
}

async function eventsOf(name: string, reason: string): Promise<CoreV1Event[]> {
  const events = await cluster.core.listNamespacedEvent({
    namespace: cluster.namespace,
    fieldSelector: `involvedObject.kind=Ingress,involvedObject.name=${name}`,
  });
  return events.items.filter((event) => event.reason === reason && event.type === 'Warning');
}

async function waitForEvent(name: string, reason: string, message: RegExp): Promise<void> {
  await eventually(async () => {
    const events = await eventsOf(name, reason);
    assert.ok(
      events.some((event) => message.test(event.message ?? '')),
      `no ${reason} Event matching ${message} on ${name}: ${JSON.stringify(events.map((event) => event.message))}`,
    );
  }, WAIT);
}

function send(host: string, path = '/'): Promise<HttpResult> {
  return httpGet({ port: cluster.portico.ports.http, host: hostOf(host), path });
}

async function untilServed(host: string, path: string, header: string | undefined): Promise<void> {
  await eventually(async () => {
    const answer = await send(host, path);
    assert.equal(answer.status, 200, `${hostOf(host)}${path}: ${answer.body.slice(0, 200)}`);
    assert.equal(echoed(answer).service, 'web');
    assert.equal(answer.headers['x-server-snippet'], header);
  }, WAIT);
}

describe('server-snippet', () => {
  test('refused while the ConfigMap does not admit snippets: the Ingress is not served, with a Rejected Event', async () => {
    await applyIngress(cluster, snippetIngress('older', 'app', '/', SNIPPET));
    await waitForEvent(
      'older',
      'Rejected',
      /server-snippet: snippet annotations are refused unless the ConfigMap sets allow-snippet-annotations/,
    );
    const answer = await send('app');
    assert.equal(answer.status, 404);
    assert.equal(answer.headers['x-server-snippet'], undefined);
  });

  test("once admitted, the snippet is in the host's server block: its header is on the host's answers", async () => {
    await cluster.core.replaceNamespacedConfigMap({
      namespace: cluster.namespace,
      name: SETTINGS,
      body: { metadata: { name: SETTINGS }, data: { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' } },
    });
    await untilServed('app', '/', 'older');
    await untilServed('app', '/any/path', 'older');
    // Another host has none.
    await applyIngress(cluster, snippetIngress('plain', 'plain', '/'));
    await untilServed('plain', '/', undefined);
  });

  test("a newer Ingress of the host does not replace the older one's snippet, and gets a Warning", async () => {
    await applyIngress(cluster, snippetIngress('newer', 'app', '/newer', 'add_header X-Server-Snippet "newer" always;'));
    await waitForEvent('newer', 'ServerSnippetIgnored', /older Ingress .*\/older/);
    await untilServed('app', '/newer', 'older');
  });

  test('a snippet of several lines (a YAML block) has each line applied; a bad second line is contained to its Ingress', async () => {
    // Waits for the old workers' retirement too: the second request below
    // could otherwise reach one that still routes the host without the snippet.
    await applyIngressAndReload(
      cluster,
      snippetIngress('multi', 'multi', '/', 'add_header X-Server-Snippet "multi" always;\n\tadd_header X-Second "2" always;\n'),
    );
    await untilServed('multi', '/', 'multi');
    assert.equal((await send('multi')).headers['x-second'], '2');
    await applyIngress(
      cluster,
      snippetIngress('multibad', 'multibad', '/', 'add_header X-Server-Snippet "a" always;\nbogus_second_line on;'),
    );
    await waitForEvent('multibad', 'Rejected', /unknown directive "bogus_second_line"/);
    await untilServed('multi', '/', 'multi');
  });

  test("a snippet nginx refuses is contained to its Ingress: nginx's message in a Rejected Event, the other hosts still served", async () => {
    await applyIngress(cluster, snippetIngress('bad', 'bad', '/', 'bogus_server_directive on;'));
    await waitForEvent('bad', 'Rejected', /unknown directive "bogus_server_directive"/);
    await applyIngress(cluster, snippetIngress('after', 'after', '/'));
    await untilServed('after', '/', undefined);
    await untilServed('app', '/', 'older');
    assert.equal((await send('bad')).status, 404);
  });
});
