// SSL passthrough through the real API server, Portico and nginx
// (--enable-ssl-passthrough, ingress-nginx's test/e2e/settings/ssl_passthrough.go):
// a backend terminating its own TLS behind `ssl-passthrough: "true"` is
// reached by SNI without nginx decrypting (the client sees the backend's
// certificate), while a normal TLS Ingress on the same HTTPS port keeps
// Portico's live certificate and the client's address; an unknown SNI gets the
// default server; plain HTTP to the passthrough host redirects as ingress-nginx;
// an endpoint change of the passthrough host under load fails no connection;
// and the client address with use-proxy-protocol and use-forwarded-headers.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect as connectTcp, Socket } from 'node:net';
import { connect, type PeerCertificate } from 'node:tls';
import type { V1IngressRule } from '@kubernetes/client-node';
import {
  applyIngress,
  createService,
  ECHO_PORT,
  ingress,
  paths,
  setEndpoints,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { putSettings, SETTINGS_CONFIGMAP } from '../support/settingsCluster.js';
import type { EchoBackend } from '../support/testNetwork.js';
import { applyTlsSecret, selfSignedCertificate, type TestCertificate } from '../support/tlsSecrets.js';

const PASSTHROUGH_HOST = 'vault.passthrough.test';
const TERMINATED_HOST = 'web.passthrough.test';
/** Plain HTTP only (no spec.tls, so no redirect): what plain HTTP's client address is checked on. */
const PLAIN_HOST = 'plain.passthrough.test';
const FAKE_CERTIFICATE_CN = 'Kubernetes Ingress Controller Fake Certificate';
const SSL_PASSTHROUGH = { 'nginx.ingress.kubernetes.io/ssl-passthrough': 'true' };
const UNTIL_SERVED = { timeoutMs: 30_000 };
/** The endpoint change's load: connections at least (while the changes are served) and at most, and at once. */
const LOAD_CONNECTIONS = 100;
const MAX_LOAD_CONNECTIONS = 5000;
const LOAD_PARALLEL = 4;

let cluster: E2eCluster;
let certificateDir: string;
let backendCertificate: TestCertificate;
let terminatedCertificate: TestCertificate;
let vaultOne: EchoBackend;
let vaultTwo: EchoBackend;

/** A TLS echo backend for the passthrough host with its own certificate, on a new address of the test network. */
async function startTlsBackend(instance: string): Promise<EchoBackend> {
  const address = await cluster.network.addAddress();
  const certFile = join(certificateDir, 'tls.crt');
  const keyFile = join(certificateDir, 'tls.key');
  return cluster.network.startEcho({ service: 'vault', instance, address, port: ECHO_PORT, tls: { certFile, keyFile } });
}

function rootRule(host: string, service: string): V1IngressRule {
  return { host, http: { paths: paths(['/', 'Prefix', service]) } };
}

before(async () => {
  const [proxyPort = 0] = await freeLoopbackPorts(1);
  // A global ConfigMap (empty: every key at its default) for the client-address tests at the end.
  const plane = await sharedControlPlane();
  const namespace = await createTestNamespace(plane.adminKubeconfig, 'passthrough');
  const settings = ['--configmap', `${namespace}/${SETTINGS_CONFIGMAP}`];
  cluster = await startE2eCluster('passthrough', [...settings, '--enable-ssl-passthrough', `--ssl-passthrough-proxy-port=${proxyPort}`], {
    namespace,
  });
  await cluster.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: SETTINGS_CONFIGMAP }, data: {} } });
  certificateDir = await mkdtemp(join(tmpdir(), 'portico-passthrough-'));
  backendCertificate = await selfSignedCertificate([PASSTHROUGH_HOST]);
  await writeFile(join(certificateDir, 'tls.crt'), backendCertificate.certificatePem);
  await writeFile(join(certificateDir, 'tls.key'), backendCertificate.keyPem, { mode: 0o600 });
  vaultOne = await startTlsBackend('vault-1');
  vaultTwo = await startTlsBackend('vault-2');
  await createService(cluster, 'vault', [vaultOne]);
  await createService(cluster, 'web', await startBackends(cluster, 'web'));
  // As ingress-nginx's e2e: the passthrough Ingress lists its host in spec.tls too (its plain HTTP then redirects).
  await applyIngress(
    cluster,
    ingress(cluster, 'vault', { tls: [{ hosts: [PASSTHROUGH_HOST] }], rules: [rootRule(PASSTHROUGH_HOST, 'vault')] }, SSL_PASSTHROUGH),
  );
  terminatedCertificate = await applyTlsSecret(cluster, 'web-tls', [TERMINATED_HOST]);
  await applyIngress(
    cluster,
    ingress(cluster, 'web', { tls: [{ hosts: [TERMINATED_HOST], secretName: 'web-tls' }], rules: [rootRule(TERMINATED_HOST, 'web')] }),
  );
  await applyIngress(cluster, ingress(cluster, 'plain', { rules: [rootRule(PLAIN_HOST, 'web')] }));
});
after(async () => {
  await cluster?.close();
  if (certificateDir !== undefined) await rm(certificateDir, { recursive: true, force: true });
});

interface TlsExchange {
  certificate: PeerCertificate;
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * One connection to Portico's HTTPS port on the test network's host address
 * (from that address, so the client is not 127.0.0.1, the hop's): a full TLS
 * handshake with `servername` as SNI (none when undefined), one HTTP/1.1
 * request, its whole answer. Bounded by a timeout.
 */
function tlsExchange(
  servername: string | undefined,
  host = servername ?? 'unknown',
  path = '/',
  { proxyHeader, headers = {} }: { proxyHeader?: string; headers?: Record<string, string> } = {},
): Promise<TlsExchange> {
  const address = cluster.network.hostAddress;
  return new Promise((resolve, reject) => {
    // node:tls has no localAddress: the TCP socket is bound first, then TLS runs over it.
    const tcp = new Socket();
    tcp.connect({ host: address, port: cluster.portico.ports.https, localAddress: address });
    if (proxyHeader !== undefined) tcp.write(proxyHeader);
    const socket = connect({ socket: tcp, servername: servername ?? '', rejectUnauthorized: false });
    socket.setTimeout(5000, () => socket.destroy(new Error(`TLS exchange with ${host} timed out`)));
    const chunks: Buffer[] = [];
    socket.once('secureConnect', () => {
      const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra.join('')}Connection: close\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = new Map(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ certificate: socket.getPeerCertificate(), status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
      socket.destroy();
    });
  });
}

/** The echo backend's JSON from a (possibly chunked) HTTP/1.1 body. */
function echoJson(exchange: TlsExchange): { service: string; instance: string; path: string; headers: Record<string, string> } {
  const body = exchange.headers.get('transfer-encoding') === 'chunked' ? dechunk(exchange.body) : exchange.body;
  try {
    return JSON.parse(body) as ReturnType<typeof echoJson>;
  } catch {
    throw new Error(`not an echo answer (HTTP ${exchange.status}): ${exchange.body.slice(0, 200)}`);
  }
}

function dechunk(body: string): string {
  let rest = body;
  let out = '';
  for (;;) {
    const end = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, end), 16);
    if (!(size > 0)) return out;
    out += rest.slice(end + 2, end + 2 + size);
    rest = rest.slice(end + 2 + size + 2);
  }
}

describe('SSL passthrough beside terminated TLS on one HTTPS port', () => {
  test('the passthrough host: the backend terminates TLS with its own certificate, and the bytes round-trip', async () => {
    await eventually(async () => {
      const exchange = await tlsExchange(PASSTHROUGH_HOST, PASSTHROUGH_HOST, '/round/trip?x=1');
      assert.equal(exchange.certificate.fingerprint256, backendCertificate.fingerprint256);
      assert.equal(exchange.status, 200);
      const echoed = echoJson(exchange);
      assert.equal(echoed.instance, 'vault-1');
      assert.equal(echoed.path, '/round/trip');
      // Not proxied by nginx's http block: no header of its own reaches the backend.
      assert.equal(echoed.headers['x-forwarded-for'], undefined);
      assert.equal(echoed.headers['x-request-id'], undefined);
    }, UNTIL_SERVED);
  });

  test("a normal TLS Ingress keeps Portico's live certificate, and its backend sees the client's address", async () => {
    await eventually(async () => {
      const exchange = await tlsExchange(TERMINATED_HOST);
      assert.equal(exchange.certificate.fingerprint256, terminatedCertificate.fingerprint256);
      const echoed = echoJson(exchange);
      assert.equal(echoed.service, 'web');
      assert.equal(echoed.headers['x-forwarded-for'], cluster.network.hostAddress);
      assert.equal(echoed.headers['x-real-ip'], cluster.network.hostAddress);
      // The port the client reached, not the internal hop's.
      assert.equal(echoed.headers['x-forwarded-port'], String(cluster.portico.ports.https));
      assert.equal(echoed.headers['x-forwarded-proto'], 'https');
    }, UNTIL_SERVED);
  });

  test('an unknown SNI, and none, get the default server (fake certificate, 404)', async () => {
    await eventually(async () => {
      for (const servername of ['unknown.passthrough.test', undefined]) {
        const exchange = await tlsExchange(servername);
        assert.equal(exchange.certificate.subject.CN, FAKE_CERTIFICATE_CN, String(servername));
        assert.equal(exchange.status, 404, String(servername));
      }
    }, UNTIL_SERVED);
  });

  test('plain HTTP to the passthrough host redirects to HTTPS, as ingress-nginx (ssl-redirect)', async () => {
    await eventually(async () => {
      const result = await httpGet({ port: cluster.portico.ports.http, host: PASSTHROUGH_HOST, path: '/page?q' });
      assert.equal(`${result.status} ${result.headers.location}`, `308 https://${PASSTHROUGH_HOST}/page?q`);
    }, UNTIL_SERVED);
  });
});

describe('an endpoint change of the passthrough host', () => {
  test('under a bounded load of TLS connections: none fails, and new connections reach the new endpoint', async () => {
    await eventually(async () => assert.equal(echoJson(await tlsExchange(PASSTHROUGH_HOST)).instance, 'vault-1'), UNTIL_SERVED);
    const failures: string[] = [];
    const seen: string[] = [];
    let started = 0;
    let changed = false;
    const worker = async (): Promise<void> => {
      // Until both changes are served, and at least LOAD_CONNECTIONS connections; never more than MAX_LOAD_CONNECTIONS.
      while ((!changed || started < LOAD_CONNECTIONS) && started < MAX_LOAD_CONNECTIONS) {
        started++;
        try {
          const exchange = await tlsExchange(PASSTHROUGH_HOST);
          assert.equal(exchange.certificate.fingerprint256, backendCertificate.fingerprint256);
          seen.push(echoJson(exchange).instance);
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    };
    const load = Promise.all(Array.from({ length: LOAD_PARALLEL }, worker));
    const lastAre = (instance: string, count: number): boolean => seen.length >= count && seen.slice(-count).every((i) => i === instance);
    try {
      // Both endpoints, then the new one only, while the load runs.
      await setEndpoints(cluster, 'vault', [vaultOne.address, vaultTwo.address]);
      await eventually(() => assert.ok(seen.includes('vault-2'), 'vault-2 reached under load'), UNTIL_SERVED);
      await setEndpoints(cluster, 'vault', [vaultTwo.address]);
      await eventually(() => assert.ok(lastAre('vault-2', 20), 'only vault-2 reached under load'), UNTIL_SERVED);
    } finally {
      changed = true;
      await load;
    }
    assert.deepEqual(failures, []);
    assert.ok(started >= LOAD_CONNECTIONS && started <= MAX_LOAD_CONNECTIONS, String(started));
  });
});

/** A plain HTTP request on one connection from the test network's host address, after `proxyHeader` when given: the echo's request headers. */
function plainHttpHeaders(headers: Record<string, string>, proxyHeader = ''): Promise<Record<string, string>> {
  const address = cluster.network.hostAddress;
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: address, port: cluster.portico.ports.http, localAddress: address });
    socket.setTimeout(5000, () => socket.destroy(new Error('plain HTTP request timed out')));
    const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`${proxyHeader}GET / HTTP/1.1\r\nHost: ${PLAIN_HOST}\r\n${extra.join('')}Connection: close\r\n\r\n`);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => {
      const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n', 2);
      try {
        assert.match(head, /^HTTP\/1\.[01] 200 /, head);
        resolve(echoed({ status: 200, headers: {}, body, certificate: undefined }).headers);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

describe('the client address with the ConfigMap keys (each combination is also in renderSslPassthrough.test.ts)', () => {
  test("use-proxy-protocol: the HTTPS port reads the load balancer's PROXY header; terminated hosts see its client, passthrough still works", async () => {
    await putSettings(cluster, { 'use-proxy-protocol': 'true' });
    const proxyHeader = (client: string, port: number): string => `PROXY TCP4 ${client} ${cluster.network.hostAddress} 40000 ${port}\r\n`;
    await eventually(async () => {
      const terminated = await tlsExchange(TERMINATED_HOST, TERMINATED_HOST, '/', { proxyHeader: proxyHeader('203.0.113.7', 443) });
      assert.equal(terminated.certificate.fingerprint256, terminatedCertificate.fingerprint256);
      assert.equal(echoJson(terminated).headers['x-forwarded-for'], '203.0.113.7');
      assert.equal(echoJson(terminated).headers['x-real-ip'], '203.0.113.7');
      const passed = await tlsExchange(PASSTHROUGH_HOST, PASSTHROUGH_HOST, '/', { proxyHeader: proxyHeader('203.0.113.8', 443) });
      assert.equal(passed.certificate.fingerprint256, backendCertificate.fingerprint256);
      assert.equal(echoJson(passed).service, 'vault');
      // Plain HTTP as without passthrough: its own PROXY header.
      assert.equal((await plainHttpHeaders({}, proxyHeader('198.51.100.9', 80)))['x-forwarded-for'], '198.51.100.9');
    }, UNTIL_SERVED);
  });

  test('use-forwarded-headers: X-Forwarded-For is believed from proxy-real-ip-cidr only, over HTTPS as over plain HTTP', async () => {
    const client = cluster.network.hostAddress;
    const forwarded = { 'X-Forwarded-For': '192.0.2.44' };
    const terminatedHeaders = async () =>
      echoJson(await tlsExchange(TERMINATED_HOST, TERMINATED_HOST, '/', { headers: forwarded })).headers;
    await putSettings(cluster, { 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': `${client}/32` });
    await eventually(async () => {
      assert.equal((await terminatedHeaders())['x-forwarded-for'], '192.0.2.44');
      assert.equal((await plainHttpHeaders(forwarded))['x-forwarded-for'], '192.0.2.44');
    }, UNTIL_SERVED);
    // The client is no trusted proxy now: its header is not believed, though the hop (127.0.0.1) is trusted for its PROXY header.
    await putSettings(cluster, { 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '10.0.0.0/8' });
    await eventually(async () => {
      const headers = await terminatedHeaders();
      assert.equal(headers['x-forwarded-for'], client);
      assert.equal(headers['x-real-ip'], client);
      assert.equal((await plainHttpHeaders(forwarded))['x-forwarded-for'], client);
    }, UNTIL_SERVED);
  });
});
