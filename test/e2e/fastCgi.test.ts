// backend-protocol: FCGI through the real API server, Portico, nginx and
// Debian's php-fpm (test/support/phpFpm.ts) in the test network: the request
// reaches PHP through the Lua balancer with nginx's standard parameters and
// the ConfigMap's, fastcgi-index names the script of a directory URI, and an
// edit to the ConfigMap alone changes what PHP sees.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { httpGet, type HttpGetOptions, type HttpResult } from '../support/httpGet.js';
import { startPhpFpm, type PhpFpm, type PhpRequest } from '../support/phpFpm.js';
import { applyIngressAndReload, ECHO_PORT, ingress, paths, setEndpoints, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';

let cluster: E2eCluster;
let php: PhpFpm;

const SERVICE = 'php';
const PARAMS = 'php-params';

before(async () => {
  cluster = await startE2eCluster('fastcgi');
  // setEndpoints lists ECHO_PORT: php-fpm listens there.
  php = await startPhpFpm(cluster.network, ECHO_PORT);
  await cluster.core.createNamespacedService({
    namespace: cluster.namespace,
    body: { metadata: { name: SERVICE }, spec: { ports: [{ name: 'http', port: 80, targetPort: ECHO_PORT }] } },
  });
  await setEndpoints(cluster, SERVICE, [php.address]);
});
after(async () => {
  await php?.stop();
  await cluster?.close();
});

const hostOf = (name: string): string => `${name}.fastcgi.test`;

async function applyAnnotated(name: string, annotations: Record<string, string>): Promise<void> {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`nginx.ingress.kubernetes.io/${key}`, value]));
  const rules = [{ host: hostOf(name), http: { paths: paths(['/', 'Prefix', SERVICE]) } }];
  await applyIngressAndReload(cluster, ingress(cluster, name, { rules }, prefixed));
}

type RequestOptions = Omit<HttpGetOptions, 'port' | 'host'>;

function untilStatus(name: string, status: number, options: RequestOptions = {}): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await httpGet({ port: cluster.portico.ports.http, host: hostOf(name), ...options });
      assert.equal(result.status, status, `${hostOf(name)}${options.path ?? '/'}: ${result.body.slice(0, 300)}`);
      return result;
    },
    { timeoutMs: 20_000 },
  );
}

const seen = (result: HttpResult): PhpRequest => JSON.parse(result.body) as PhpRequest;

async function writeParams(data: Record<string, string>): Promise<void> {
  const body = { metadata: { name: PARAMS }, data };
  try {
    await cluster.core.replaceNamespacedConfigMap({ namespace: cluster.namespace, name: PARAMS, body });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
    await cluster.core.createNamespacedConfigMap({ namespace: cluster.namespace, body });
  }
}

describe('backend-protocol: FCGI', () => {
  before(async () => {
    await writeParams({ SCRIPT_FILENAME: `${php.root}$fastcgi_script_name`, PORTICO_PARAM: 'first' });
    await applyAnnotated('app', { 'backend-protocol': 'FCGI', 'fastcgi-index': 'index.php', 'fastcgi-params-configmap': PARAMS });
  });

  test("php-fpm answers with the script the ConfigMap's SCRIPT_FILENAME names, the request's method and URI, and the ConfigMap's parameter", async () => {
    const result = await untilStatus('app', 200, {
      path: '/info.php?x=1',
      method: 'POST',
      body: 'a=1',
    });
    assert.deepEqual(seen(result), { script: `${php.root}/info.php`, method: 'POST', uri: '/info.php?x=1', param: 'first' });
  });

  test('fastcgi-index names the script of a directory URI', async () => {
    assert.equal(seen(await untilStatus('app', 200, { path: '/' })).script, `${php.root}/index.php`);
  });

  test('an edit to the ConfigMap alone changes the parameter PHP sees', async () => {
    await writeParams({ SCRIPT_FILENAME: `${php.root}$fastcgi_script_name`, PORTICO_PARAM: 'second' });
    await eventually(
      async () => {
        const result = await untilStatus('app', 200, { path: '/info.php' });
        assert.equal(seen(result).param, 'second');
      },
      { timeoutMs: 20_000 },
    );
  });

  test('a missing ConfigMap answers 503 with a Warning on the Ingress', async () => {
    await applyAnnotated('missing', { 'backend-protocol': 'FCGI', 'fastcgi-params-configmap': 'no-such-params' });
    await untilStatus('missing', 503, { path: '/info.php' });
    await eventually(
      async () => {
        const events = await cluster.core.listNamespacedEvent({
          namespace: cluster.namespace,
          fieldSelector: 'involvedObject.name=missing',
        });
        assert.ok(
          events.items.some((event) => event.type === 'Warning' && event.reason === 'InvalidFastCgiParams'),
          JSON.stringify(events.items.map((event) => event.reason)),
        );
      },
      { timeoutMs: 15_000 },
    );
  });
});
