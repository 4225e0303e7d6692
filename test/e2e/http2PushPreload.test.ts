// http2-push-preload through the real API server, Portico and nginx (Debian's
// 1.22 still has HTTP/2 server push): an answer's Link preload header becomes
// a push promise over HTTP/2, only in the locations of the Ingress that asks.
// The Link header comes from a configuration-snippet (the echo backend sends
// none), so the ConfigMap admits snippets.
import assert from 'node:assert/strict';
import { connect } from 'node:http2';
import { after, before, test } from 'node:test';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { eventually } from '../support/eventually.js';
import {
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';

const SETTINGS = 'push-settings';
const LINK = 'add_header Link "</pushed.css>; rel=preload; as=style";';

let cluster: E2eCluster;

before(async () => {
  const namespace = await createTestNamespace((await sharedControlPlane()).adminKubeconfig, 'push');
  cluster = await startE2eCluster('push', [`--configmap=${namespace}/${SETTINGS}`], { namespace });
  await cluster.core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: SETTINGS }, data: { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' } },
  });
  await createService(cluster, 'web', await startBackends(cluster, 'web'));
});
after(async () => {
  await cluster?.close();
});

const hostOf = (name: string): string => `${name}.push.test`;

async function applyHost(name: string, annotations: Record<string, string>): Promise<void> {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
  await applyIngressAndReload(
    cluster,
    ingress(cluster, name, { rules: [{ host: hostOf(name), http: { paths: paths(['/', 'Prefix', 'web']) } }] }, prefixed),
  );
}

/** One HTTP/2 request over TLS: its status, its Link header, and the paths nginx promised to push before the answer ended. */
function getOverHttp2(host: string): Promise<{ status: number; link: string | undefined; pushed: string[] }> {
  return new Promise((resolve, reject) => {
    const session = connect(`https://127.0.0.1:${cluster.portico.ports.https}`, { servername: host, rejectUnauthorized: false });
    const pushed: string[] = [];
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`no answer from ${host} within 5 s`));
    }, 5_000);
    session.on('error', (error: Error) => {
      clearTimeout(timer);
      reject(error);
    });
    session.on('stream', (stream, headers) => {
      pushed.push(String(headers[':path']));
      stream.resume();
    });
    const request = session.request({ ':path': '/', ':authority': host });
    let status = 0;
    let link: string | undefined;
    request.on('response', (headers) => {
      status = Number(headers[':status']);
      link = headers.link === undefined ? undefined : String(headers.link);
    });
    request.resume();
    request.on('end', () => {
      clearTimeout(timer);
      session.close();
      resolve({ status, link, pushed });
    });
    request.on('error', (error: Error) => reject(error));
    request.end();
  });
}

test('with http2-push-preload the Link preload is pushed; without it, the same Link header is not', async () => {
  await applyHost('pushing', { 'configuration-snippet': LINK, 'http2-push-preload': 'true' });
  await applyHost('plain', { 'configuration-snippet': LINK });
  const pushing = await eventually(
    async () => {
      const answer = await getOverHttp2(hostOf('pushing'));
      assert.equal(answer.status, 200);
      return answer;
    },
    { timeoutMs: 20_000 },
  );
  assert.deepEqual(pushing.pushed, ['/pushed.css']);
  const plain = await getOverHttp2(hostOf('plain'));
  assert.equal(plain.status, 200);
  assert.match(plain.link ?? '', /rel=preload/);
  assert.deepEqual(plain.pushed, []);
});
