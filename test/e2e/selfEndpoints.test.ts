// Hostile backends that are Portico itself (issue 12's security review): an
// ExternalName Service `0.0.0.0` at the status port served every tenant's
// certificate and private key through the public port, and a POST there
// rerouted other tenants; an EndpointSlice naming the proxy's own port made
// one request thousands of connections. Through the real API server and the
// Portico process: none of it reaches nginx's configuration, nothing loops,
// the tenants keep working, and the Ingresses concerned get a Warning Event.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { eventually } from '../support/eventually.js';
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
import { echoed, httpGet } from '../support/httpGet.js';
import { applyTlsSecret } from '../support/tlsSecrets.js';

const TENANT = 'tenant.self.test';
/** Requests per hostile host and method: a loop would turn each into hundreds of connections. */
const REQUESTS = 3;
/**
 * Connections nginx accepts per request: the client's, and the proxied one to
 * the no-endpoints server, which is in the same nginx and closes each
 * connection after its 503. A loop would make hundreds.
 */
const CONNECTIONS_PER_REQUEST = 2;
/** Connections nginx may accept beyond the test's own requests (health checks, metrics scrapes). */
const CONNECTION_SLACK = 40;

/**
 * A Service whose one EndpointSlice lists the first of `candidates` the API
 * server accepts (it refuses loopback and IPv4-mapped addresses itself, but
 * not every spelling or this machine's own addresses); the address, or
 * undefined when it accepts none.
 */
async function hostileService(
  cluster: E2eCluster,
  name: string,
  port: number,
  candidates: readonly [type: string, address: string][],
): Promise<string | undefined> {
  await cluster.core.createNamespacedService({
    namespace: cluster.namespace,
    body: { metadata: { name }, spec: { ports: [{ name: 'http', port: 80 }] } },
  });
  for (const [addressType, address] of candidates) {
    try {
      await cluster.discovery.createNamespacedEndpointSlice({
        namespace: cluster.namespace,
        body: {
          metadata: { name: `${name}-slice`, labels: { 'kubernetes.io/service-name': name } },
          addressType,
          endpoints: [{ addresses: [address], conditions: { ready: true } }],
          ports: [{ name: 'http', port, protocol: 'TCP' }],
        },
      });
      return address;
    } catch (error) {
      if ((error as { code?: number }).code !== 422) throw error;
    }
  }
  return undefined;
}

/** This machine's first non-loopback IPv4 address: Portico's public servers listen on it too. */
function interfaceAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;
  assert.ok(address, 'this machine has a non-loopback IPv4 address');
  return address;
}

async function externalNameService(cluster: E2eCluster, name: string, externalName: string, port: number): Promise<void> {
  await cluster.core.createNamespacedService({
    namespace: cluster.namespace,
    body: { metadata: { name }, spec: { type: 'ExternalName', externalName, ports: [{ name: 'http', port }] } },
  });
}

/** nginx's `accepts` counter (stub_status on the loopback status port). */
async function acceptedConnections(cluster: E2eCluster): Promise<number> {
  const status = await httpGet({ port: cluster.portico.ports.status, path: '/nginx_status' });
  const accepts = /\n\s*(\d+)\s+\d+\s+\d+/.exec(status.body)?.[1];
  assert.ok(accepts, status.body);
  return Number(accepts);
}

async function warningReasons(cluster: E2eCluster, name: string): Promise<string[]> {
  const events = await cluster.core.listNamespacedEvent({
    namespace: cluster.namespace,
    fieldSelector: `involvedObject.kind=Ingress,involvedObject.name=${name}`,
  });
  return events.items.filter((event) => event.type === 'Warning').map((event) => `${event.reason}: ${event.message}`);
}

describe('backends that are Portico itself', () => {
  let cluster: E2eCluster;
  let hostile: { name: string; host: string }[];

  before(async () => {
    cluster = await startE2eCluster('self');
    const { http, status } = cluster.portico.ports;
    await createService(cluster, 'web', await startBackends(cluster, 'web'));
    // The tenant has TLS: its private key is in the live state a hostile backend would read.
    await applyTlsSecret(cluster, 'tenant-tls', [TENANT]);
    // Each Ingress until its reload and the old workers' retirement (one would 404 these new hosts): the first
    // test asks every host once per request, the tenant last.
    await applyIngressAndReload(
      cluster,
      ingress(cluster, 'tenant', {
        tls: [{ hosts: [TENANT], secretName: 'tenant-tls' }],
        rules: [{ host: TENANT, http: { paths: paths(['/', 'Prefix', 'web']) } }],
      }),
    );
    await externalNameService(cluster, 'zero', '0.0.0.0', status);
    await externalNameService(cluster, 'local', 'localhost', http);
    const statusSlice = await hostileService(cluster, 'status', status, [
      ['IPv6', '::ffff:7f00:1'],
      ['IPv6', '0:0:0:0:0:ffff:7f00:1'],
      ['IPv6', '::'],
      ['IPv4', '0.0.0.0'],
      ['IPv4', interfaceAddress()],
    ]);
    const loop = await hostileService(cluster, 'loop', http, [
      ['IPv4', '127.0.0.1'],
      ['IPv4', interfaceAddress()],
    ]);
    // At worst this machine's own address gets in (the API server refuses the loopback spellings).
    assert.ok(statusSlice !== undefined && loop !== undefined);
    hostile = [
      { name: 'zero', host: 'zero.self.test' },
      { name: 'local', host: 'local.self.test' },
      { name: 'status', host: 'status.self.test' },
      { name: 'loop', host: 'loop.self.test' },
    ];
    for (const { name, host } of hostile) {
      const port = name === 'zero' ? status : name === 'local' ? http : 80;
      await applyIngressAndReload(
        cluster,
        ingress(cluster, name, { rules: [{ host, http: { paths: paths(['/', 'Prefix', name, port]) } }] }),
      );
    }
    await eventually(
      async () => {
        const result = await httpGet({ port: http, host: TENANT });
        assert.equal(result.status, 308, 'the TLS host is served (and redirects plain HTTP)');
        for (const { host } of hostile) assert.equal((await httpGet({ port: http, host })).status, 503, host);
      },
      { timeoutMs: 30_000 },
    );
  });
  after(async () => {
    await cluster?.close();
  });

  test('no response through the public port carries configuration or key material; a forged push is not stored; nothing loops', async () => {
    const { http, https } = cluster.portico.ports;
    const before = await acceptedConnections(cluster);
    let sent = 0;
    for (const { host } of hostile) {
      for (let i = 0; i < REQUESTS; i++) {
        for (const [method, path, body] of [
          ['GET', '/configuration/certificates', undefined],
          ['GET', '/configuration/backends', undefined],
          [
            'POST',
            '/configuration/backends',
            JSON.stringify({ backends: [{ name: 'app-web-80', endpoints: [{ address: '192.0.2.1', port: 1 }] }] }),
          ],
          ['GET', '/is-dynamic-lb-initialized', undefined],
        ] as const) {
          const result = await httpGet({
            port: http,
            host,
            method,
            path,
            body,
            headers: body ? { 'content-type': 'application/json' } : {},
            timeoutMs: 10_000,
          });
          sent++;
          assert.equal(result.status, 503, `${method} ${host}${path}: ${result.body.slice(0, 200)}`);
          assert.doesNotMatch(
            result.body,
            /PRIVATE KEY|BEGIN CERTIFICATE|"backends"|"certificates"|version \d/,
            `${method} ${host}${path}`,
          );
        }
      }
    }
    const accepted = (await acceptedConnections(cluster)) - before;
    assert.ok(
      accepted <= CONNECTIONS_PER_REQUEST * sent + CONNECTION_SLACK,
      `${accepted} connections for ${sent} requests: a request loop`,
    );
    // The forged backends were never stored: the tenant still reaches its own backend.
    const tenant = await httpGet({ port: https, host: TENANT, https: true });
    assert.equal(tenant.status, 200, tenant.body);
    assert.equal(echoed(tenant).service, 'web');
  });

  test('each Ingress whose backend names Portico gets a Warning Event saying why (literal addresses; names are refused in the log)', async () => {
    await eventually(
      async () => {
        for (const name of ['zero', 'status', 'loop']) {
          const warnings = await warningReasons(cluster, name);
          assert.ok(
            warnings.some((warning) => warning.startsWith('EndpointRefused:')),
            `${name}: ${JSON.stringify(warnings)}`,
          );
        }
        assert.match(cluster.portico.logTail(400), /localhost resolves to endpoint (127\.0\.0\.1|::1):\d+ is a loopback/);
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    assert.deepEqual(await warningReasons(cluster, 'tenant'), []);
  });
});

describe('--disable-svc-external-name', () => {
  let cluster: E2eCluster;

  before(async () => {
    cluster = await startE2eCluster('noextname', ['--disable-svc-external-name']);
    const [backend] = await startBackends(cluster, 'web');
    assert.ok(backend);
    await createService(cluster, 'web', [backend]);
    // An ExternalName naming the backend's address: served without the flag (the model's tests), refused with it.
    await externalNameService(cluster, 'ext', backend.address, 8080);
    await applyIngress(
      cluster,
      ingress(cluster, 'ext', { rules: [{ host: 'ext.noextname.test', http: { paths: paths(['/', 'Prefix', 'ext', 8080]) } }] }),
    );
    await applyIngress(
      cluster,
      ingress(cluster, 'web', { rules: [{ host: 'web.noextname.test', http: { paths: paths(['/', 'Prefix', 'web']) } }] }),
    );
  });
  after(async () => {
    await cluster?.close();
  });

  test('an ExternalName Service gives no endpoints (503) and a Warning Event; other Services serve', async () => {
    const { http } = cluster.portico.ports;
    await eventually(
      async () => {
        assert.equal((await httpGet({ port: http, host: 'web.noextname.test' })).status, 200);
        assert.equal((await httpGet({ port: http, host: 'ext.noextname.test' })).status, 503);
        const warnings = await warningReasons(cluster, 'ext');
        assert.ok(
          warnings.some((warning) => /^EndpointRefused: .*ExternalName.*--disable-svc-external-name/.test(warning)),
          JSON.stringify(warnings),
        );
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
  });
});
