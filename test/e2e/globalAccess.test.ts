// The ConfigMap's global filters and defaults through the real API server,
// Portico, nginx and an echo backend: block-cidrs (the test client's own
// address), block-user-agents (exact and regex), block-referers,
// whitelist-source-range for an Ingress without the annotation, and
// proxy-cookie-path rewriting the backend's Set-Cookie for one without it.
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

const SETTINGS = 'global-access-settings';
const WAIT = { timeoutMs: 20_000, intervalMs: 200 };
/** Where the test client's requests come from (httpGet's loopback). */
const CLIENT = '127.0.0.1';

let cluster: E2eCluster;

before(async () => {
  const namespace = await createTestNamespace((await sharedControlPlane()).adminKubeconfig, 'global-access');
  cluster = await startE2eCluster('global-access', [`--configmap=${namespace}/${SETTINGS}`], { namespace });
  await cluster.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: SETTINGS }, data: {} } });
  await createService(cluster, 'web', await startBackends(cluster, 'web'));
  await applyHost('plain');
  await applyHost('allowed', { 'nginx.ingress.kubernetes.io/whitelist-source-range': `${CLIENT}/32` });
});
after(async () => {
  await cluster?.close();
});

const hostOf = (name: string): string => `${name}.global-access.test`;

async function applyHost(name: string, annotations: Record<string, string> = {}): Promise<void> {
  await applyIngress(
    cluster,
    ingress(cluster, name, { rules: [{ host: hostOf(name), http: { paths: paths(['/', 'Prefix', 'web']) } }] }, annotations),
  );
}

/** Each write changes nginx.conf: waits for its reload and the old workers' retirement (the tests ask several times after one right answer). */
async function setSettings(data: Record<string, string>): Promise<void> {
  await changeAndReload([cluster.portico], 'the ConfigMap', () =>
    cluster.core.replaceNamespacedConfigMap({
      namespace: cluster.namespace,
      name: SETTINGS,
      body: { metadata: { name: SETTINGS }, data },
    }),
  );
}

function send(name: string, options: Omit<HttpGetOptions, 'port' | 'host'> = {}): Promise<HttpResult> {
  return httpGet({ port: cluster.portico.ports.http, host: hostOf(name), ...options });
}

const withHeader = (header: string, value: string) => ({ headers: { [header]: value } });

/** Waits until the host answers `status` to the request. */
async function untilStatus(name: string, status: number, options: Omit<HttpGetOptions, 'port' | 'host'> = {}): Promise<HttpResult> {
  return eventually(async () => {
    const answer = await send(name, options);
    assert.equal(answer.status, status, `${hostOf(name)} ${JSON.stringify(options)}: ${answer.body.slice(0, 200)}`);
    return answer;
  }, WAIT);
}

test('block-cidrs: the client in a listed CIDR gets 403 on every host; out of the list, it is served', async () => {
  assert.equal(echoed(await untilStatus('plain', 200)).service, 'web');
  await setSettings({ 'block-cidrs': `10.0.0.0/8,${CLIENT}/32` });
  await untilStatus('plain', 403);
  await setSettings({ 'block-cidrs': '10.0.0.0/8' });
  await untilStatus('plain', 200);
});

test('block-user-agents: an exact string (any case) and a case-insensitive regex get 403, others are served', async () => {
  const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/68.0.3440.106 Safari/537.36';
  const iphone =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 11_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/11.0 Mobile/15E148';
  await setSettings({ 'block-user-agents': '~*chrome\\/68\\.0\\.3440\\.106\\ safari\\/537\\.36,AlphaBot' });
  await untilStatus('plain', 403, withHeader('User-Agent', 'AlphaBot'));
  assert.equal((await send('plain', withHeader('User-Agent', 'alphabot'))).status, 403);
  assert.equal((await send('plain', withHeader('User-Agent', chrome))).status, 403);
  assert.equal((await send('allowed', withHeader('User-Agent', chrome))).status, 403);
  assert.equal((await send('plain', withHeader('User-Agent', 'AlphaBot2'))).status, 200);
  assert.equal((await send('plain', withHeader('User-Agent', iphone))).status, 200);
});

test('block-referers: an exact string and a regex get 403, a longer string is served', async () => {
  await setSettings({ 'block-referers': '~*example\\.com,qwerty' });
  await untilStatus('plain', 403, withHeader('Referer', 'qwerty'));
  assert.equal((await send('plain', withHeader('Referer', 'https://www.EXAMPLE.com/'))).status, 403);
  assert.equal((await send('plain', withHeader('Referer', 'qwerty123'))).status, 200);
  assert.equal((await send('plain')).status, 200);
});

test("whitelist-source-range: an Ingress without the annotation gets the ConfigMap's list, one with it keeps its own", async () => {
  await setSettings({ 'whitelist-source-range': '10.0.0.0/8' });
  await untilStatus('plain', 403);
  assert.equal((await send('allowed')).status, 200);
  await setSettings({ 'whitelist-source-range': `10.0.0.0/8,${CLIENT}` });
  await untilStatus('plain', 200);
});

test("proxy-cookie-path: the ConfigMap's rewrite applies to the backend's Set-Cookie of an Ingress without the annotation", async () => {
  const path = `/response-headers?${new URLSearchParams({ 'Set-Cookie': 'session=1; Path=/one/' }).toString()}`;
  assert.deepEqual((await untilStatus('plain', 200, { path })).headers['set-cookie'], ['session=1; Path=/one/']);
  await setSettings({ 'proxy-cookie-path': '/one/ /' });
  await eventually(async () => {
    assert.deepEqual((await send('plain', { path })).headers['set-cookie'], ['session=1; Path=/']);
  }, WAIT);
});
