// ssl-ciphers and ssl-prefer-server-ciphers per host, and enable-access-log and
// enable-rewrite-log per location, end to end: real TLS handshakes against
// Portico's nginx (certificates served from Lua, every host on the one HTTPS
// listener), nginx's own access and error logs, and the request metrics.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { httpGet } from '../support/httpGet.js';
import { CONTROLLER_NAMESPACE } from '../support/ingressStatus.js';
import { parsePrometheusText, samplesOf } from '../support/prometheusText.js';
import { applyTlsSecret } from '../support/tlsSecrets.js';
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

const ANNOTATION = 'nginx.ingress.kubernetes.io';
const UNTIL_SERVED = { timeoutMs: 20_000 };
/** Its own Lease, so that no other test's Portico leads it (--enable-metrics needs the controller's namespace). */
const ELECTION_ID = `tls-log-${process.pid}-${Date.now()}`;

// In the ConfigMap's default list (ingress-nginx's) and not, all RSA key exchange or authentication (the test certificates are RSA).
const IN_DEFAULT_LIST = 'ECDHE-RSA-AES128-GCM-SHA256';
const ALSO_IN_DEFAULT_LIST = 'ECDHE-RSA-AES256-GCM-SHA384';
const NOT_IN_DEFAULT_LIST = 'AES128-SHA';

let cluster: E2eCluster;

before(async () => {
  cluster = await startE2eCluster('tls-log', ['--enable-metrics', `--election-id=${ELECTION_ID}`], {
    env: { POD_NAMESPACE: CONTROLLER_NAMESPACE },
  });
  await createService(cluster, 'web', await startBackends(cluster, 'web'));
});
after(() => cluster?.close());

/**
 * An Ingress serving `host` over TLS (its own certificate, from Lua) to `web`, with these annotations;
 * `andReload`: until nginx reloaded with it and the workers of before retired (one would handshake without its ciphers).
 */
async function tlsHost(name: string, host: string, annotations: Record<string, string>, andReload = false): Promise<void> {
  await applyTlsSecret(cluster, name, [host]);
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${ANNOTATION}/${key}`, value]));
  await (andReload ? applyIngressAndReload : applyIngress)(
    cluster,
    ingress(
      cluster,
      name,
      { tls: [{ hosts: [host], secretName: name }], rules: [{ host, http: { paths: paths(['/', 'Prefix', 'web']) } }] },
      prefixed,
    ),
  );
}

/** The cipher a TLS 1.2 handshake with SNI `servername`, offering `ciphers` in this order, agrees on; or `refused`. */
function handshake(servername: string, ciphers: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({
      host: '127.0.0.1',
      port: cluster.portico.ports.https,
      servername,
      ciphers,
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      rejectUnauthorized: false,
      timeout: 5000,
    });
    const finish = (outcome: string) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.once('secureConnect', () => finish(socket.getCipher().name));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      finish(/handshake failure|no shared cipher/i.test(error.message) ? 'refused' : error.message),
    );
    socket.once('timeout', () => finish('timeout'));
  });
}

describe('ssl-ciphers and ssl-prefer-server-ciphers, per host on one listener', () => {
  // Each waits for its own reload (a reload still under way would end an applyIngressAndReload early): the tests
  // handshake once per case.
  before(async () => {
    await tlsHost('weak', 'weak.ciphers.test', { 'ssl-ciphers': NOT_IN_DEFAULT_LIST }, true);
    await tlsHost('strict', 'strict.ciphers.test', { 'ssl-ciphers': ALSO_IN_DEFAULT_LIST }, true);
    await tlsHost('plain', 'plain.ciphers.test', {}, true);
    await tlsHost(
      'server-order',
      'server-order.ciphers.test',
      { 'ssl-ciphers': `${ALSO_IN_DEFAULT_LIST}:${IN_DEFAULT_LIST}`, 'ssl-prefer-server-ciphers': 'true' },
      true,
    );
    await tlsHost(
      'client-order',
      'client-order.ciphers.test',
      { 'ssl-ciphers': `${ALSO_IN_DEFAULT_LIST}:${IN_DEFAULT_LIST}`, 'ssl-prefer-server-ciphers': 'false' },
      true,
    );
    for (const host of ['weak', 'strict', 'plain', 'server-order', 'client-order']) {
      await eventually(async () => {
        const result = await httpGet({ port: cluster.portico.ports.https, host: `${host}.ciphers.test`, https: true });
        assert.equal(result.status, 200, host);
      }, UNTIL_SERVED);
    }
  });

  test("a cipher only one host's ssl-ciphers allows: the handshake succeeds for that host only", async () => {
    await eventually(
      async () => assert.equal(await handshake('weak.ciphers.test', NOT_IN_DEFAULT_LIST), NOT_IN_DEFAULT_LIST),
      UNTIL_SERVED,
    );
    assert.equal(await handshake('strict.ciphers.test', NOT_IN_DEFAULT_LIST), 'refused');
    // A host without the annotation keeps the ConfigMap's list.
    assert.equal(await handshake('plain.ciphers.test', NOT_IN_DEFAULT_LIST), 'refused');
    assert.equal(await handshake('plain.ciphers.test', IN_DEFAULT_LIST), IN_DEFAULT_LIST);
    // The other way round: a cipher of the ConfigMap's list that one host's own list leaves out.
    assert.equal(await handshake('strict.ciphers.test', IN_DEFAULT_LIST), 'refused');
    assert.equal(await handshake('strict.ciphers.test', ALSO_IN_DEFAULT_LIST), ALSO_IN_DEFAULT_LIST);
    assert.equal(await handshake('weak.ciphers.test', IN_DEFAULT_LIST), 'refused');
  });

  test('ssl-prefer-server-ciphers: the host’s own order, or the client’s', async () => {
    const clientOrder = `${IN_DEFAULT_LIST}:${ALSO_IN_DEFAULT_LIST}`;
    assert.equal(await handshake('server-order.ciphers.test', clientOrder), ALSO_IN_DEFAULT_LIST);
    assert.equal(await handshake('client-order.ciphers.test', clientOrder), IN_DEFAULT_LIST);
  });
});

describe('a cipher list only nginx can refuse', () => {
  // The model admits it (a cipher is selected), OpenSSL finds none left; nginx names no line, only the list.
  test('leaves out that Ingress alone, with a Rejected Event, and later changes are served', async () => {
    await tlsHost('cancelled', 'cancelled.ciphers.test', { 'ssl-ciphers': `${NOT_IN_DEFAULT_LIST}:!${NOT_IN_DEFAULT_LIST}` });
    await eventually(async () => {
      const events = await cluster.core.listNamespacedEvent({
        namespace: cluster.namespace,
        fieldSelector: 'involvedObject.kind=Ingress,involvedObject.name=cancelled',
      });
      const rejected = events.items.filter((event) => event.reason === 'Rejected');
      assert.ok(
        rejected.some((event) => /no cipher match/.test(event.message ?? '')),
        JSON.stringify(rejected.map((e) => e.message)),
      );
    }, UNTIL_SERVED);
    await tlsHost('later', 'later.ciphers.test', {});
    await eventually(async () => {
      assert.equal((await httpGet({ port: cluster.portico.ports.https, host: 'later.ciphers.test', https: true })).status, 200);
    }, UNTIL_SERVED);
    // Not served: the catch-all answers its name.
    assert.equal((await httpGet({ port: cluster.portico.ports.https, host: 'cancelled.ciphers.test', https: true })).status, 404);
  });
});

/** The lines of one of nginx's logs that contain `text`. */
async function logLines(file: 'access.log' | 'error.log', text: string): Promise<string[]> {
  const content = await readFile(join(cluster.portico.prefix, 'logs', file), 'utf8').catch(() => '');
  return content.split('\n').filter((line) => line.includes(text));
}

async function requestsCounted(path: string): Promise<number> {
  const response = await httpGet({ port: cluster.portico.ports.healthz, path: '/metrics' });
  const labels = { namespace: cluster.namespace, path, status: '200', method: 'GET' };
  return samplesOf(parsePrometheusText(response.body), 'nginx_ingress_controller_requests', labels).reduce((sum, s) => sum + s.value, 0);
}

describe('enable-access-log and enable-rewrite-log', () => {
  const host = 'logs.test';
  const get = (path: string) => httpGet({ port: cluster.portico.ports.http, host, path });

  before(async () => {
    const rule = (path: string) => ({ host, http: { paths: paths([path, 'Prefix', 'web']) } });
    // Each waits for its reload: one still under way would end the wait for quiet's early.
    await applyIngressAndReload(cluster, ingress(cluster, 'loud', { rules: [rule('/loud')] }));
    const rewriting = { [`${ANNOTATION}/enable-rewrite-log`]: 'true', [`${ANNOTATION}/rewrite-target`]: '/rewritten' };
    await applyIngressAndReload(
      cluster,
      ingress(
        cluster,
        'rewriting',
        { rules: [{ host: 'rewrite.logs.test', http: { paths: paths(['/from', 'Prefix', 'web']) } }] },
        rewriting,
      ),
    );
    // Last, and until the workers from before its reload have retired: an answer is then the new nginx.conf's,
    // never an old worker's 404 (one that has not yet taken its quit signal still accepts connections).
    await applyIngressAndReload(
      cluster,
      ingress(cluster, 'quiet', { rules: [rule('/quiet')] }, { [`${ANNOTATION}/enable-access-log`]: 'false' }),
    );
    for (const path of ['/loud', '/quiet']) await eventually(async () => assert.equal((await get(path)).status, 200, path), UNTIL_SERVED);
  });

  test('enable-access-log: "false" writes no access log line, and the requests are still counted in the metrics', async () => {
    const marker = randomUUID();
    for (let i = 0; i < 3; i++) assert.equal((await get(`/quiet/${marker}`)).status, 200);
    assert.equal((await get(`/loud/${marker}`)).status, 200);
    // The metrics come from the log phase, as the access log line would: once they are counted, that phase is done.
    // Counted: the one 200 that ended the wait in before(), and these three.
    await eventually(async () => assert.equal(await requestsCounted('/quiet'), 1 + 3), { timeoutMs: 15_000, intervalMs: 250 });
    await eventually(async () => assert.equal((await logLines('access.log', `/loud/${marker}`)).length, 1), { timeoutMs: 10_000 });
    assert.deepEqual(await logLines('access.log', `/quiet/${marker}`), []);
  });

  test('enable-rewrite-log: "true" logs the rewrite in the error log at notice level', async () => {
    const marker = randomUUID();
    await eventually(async () => {
      const echo = await httpGet({ port: cluster.portico.ports.http, host: 'rewrite.logs.test', path: `/from/${marker}` });
      assert.equal(echo.status, 200);
    }, UNTIL_SERVED);
    await eventually(
      async () => {
        const found = await logLines('error.log', `/from/${marker}`);
        assert.ok(
          found.some((line) => line.includes('[notice]') && line.includes('rewritten data: "/rewritten"')),
          found.join('\n'),
        );
      },
      { timeoutMs: 10_000 },
    );
  });
});
