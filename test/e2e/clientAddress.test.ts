// The client's address through the real API server, Portico, nginx and an
// echo backend, asserting what ingress-nginx's e2e tests do
// (settings/forwarded_headers.go, settings/proxy_protocol.go,
// annotations/ipdenylist.go): X-Forwarded-For is believed only from
// proxy-real-ip-cidr, allow/deny lists see the address real IP found, and a
// PROXY protocol header (v1 and v2) gives the client's address and port.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { applyIngress, createService, ingress, paths, startBackends, type E2eCluster } from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { putSettings, startSettingsCluster } from '../support/settingsCluster.js';
import { echoed, httpGet, type HttpResult } from '../support/httpGet.js';

const HOST = 'echo.client-address.test';
const DENIED_HOST = 'denied.client-address.test';

let cluster: E2eCluster;

before(async () => {
  cluster = await startSettingsCluster('client-address');
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
  await applyIngress(cluster, ingress(cluster, 'echo', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'echo']) } }] }));
  await applyIngress(
    cluster,
    ingress(
      cluster,
      'denied',
      { rules: [{ host: DENIED_HOST, http: { paths: paths(['/', 'Prefix', 'echo']) } }] },
      { 'nginx.ingress.kubernetes.io/denylist-source-range': '1.2.3.4/32' },
    ),
  );
});
after(() => cluster?.close());

function setSettings(data: Record<string, string>): Promise<void> {
  return putSettings(cluster, data);
}

function get(headers: Record<string, string>, host = HOST): Promise<HttpResult> {
  return httpGet({ port: cluster.portico.ports.http, host, headers });
}

/**
 * Runs `checks` until they all hold in one pass: a ConfigMap edit takes a
 * reload, and until the old workers have stopped accepting, a connection may
 * still reach one of them.
 */
function settled(checks: () => Promise<void>): Promise<void> {
  return eventually(checks, { timeoutMs: 20_000 });
}

async function echoedHeaders(headers: Record<string, string>): Promise<Record<string, string>> {
  return echoed(await get(headers)).headers;
}

const CLIENT_HEADERS = {
  'X-Forwarded-For': '1.2.3.4',
  'X-Forwarded-Host': 'myhost.example, another.example,third.example',
  'X-Forwarded-Proto': 'myproto',
  'X-Forwarded-Scheme': 'myproto',
  'X-Forwarded-Port': '1234',
};

describe('forwarded headers', () => {
  test("by default: the connection's address; the client's headers pass as X-Original-*, never as X-Forwarded-Scheme", async () => {
    await settled(async () => {
      const seen = await echoedHeaders(CLIENT_HEADERS);
      assert.equal(seen['x-forwarded-for'], '127.0.0.1');
      assert.equal(seen['x-real-ip'], '127.0.0.1');
      assert.equal(seen['x-forwarded-scheme'], 'http');
      assert.equal(seen['x-forwarded-proto'], 'http');
      assert.equal(seen['x-forwarded-port'], String(cluster.portico.ports.http));
      assert.equal(seen['x-forwarded-host'], HOST);
      assert.equal(seen['x-original-forwarded-for'], '1.2.3.4');
      assert.equal(seen['x-original-forwarded-host'], CLIENT_HEADERS['X-Forwarded-Host']);
      // The denylist sees the connection's address, not the client's claim.
      assert.equal((await get({ 'X-Forwarded-For': '1.2.3.4' }, DENIED_HOST)).status, 200);
    });
  });

  test('use-forwarded-headers from a trusted proxy: the forwarded client, first X-Forwarded-Host; the denylist sees it', async () => {
    await setSettings({ 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '10.0.0.0/8,127.0.0.1/32' });
    await settled(async () => {
      const seen = await echoedHeaders(CLIENT_HEADERS);
      assert.equal(seen['x-forwarded-for'], '1.2.3.4');
      assert.equal(seen['x-real-ip'], '1.2.3.4');
      assert.equal(seen.host, 'myhost.example');
      assert.equal(seen['x-forwarded-host'], 'myhost.example');
      assert.equal(seen['x-forwarded-proto'], 'myproto');
      assert.equal(seen['x-forwarded-scheme'], 'myproto');
      assert.equal(seen['x-forwarded-port'], '1234');
      assert.equal(seen['x-original-forwarded-for'], '1.2.3.4');
      // recursive: the rightmost address of the chain that is not a trusted proxy.
      assert.equal((await echoedHeaders({ 'X-Forwarded-For': '5.6.7.8, 10.1.1.1' }))['x-forwarded-for'], '5.6.7.8');
      assert.equal((await get({ 'X-Forwarded-For': '1.2.3.4' }, DENIED_HOST)).status, 403);
      assert.equal((await get({ 'X-Forwarded-For': '5.6.7.8' }, DENIED_HOST)).status, 200);
    });
  });

  test('use-forwarded-headers from an untrusted address: X-Forwarded-For is ignored', async () => {
    await setSettings({ 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '10.0.0.0/8' });
    await settled(async () => {
      const seen = await echoedHeaders(CLIENT_HEADERS);
      assert.equal(seen['x-forwarded-for'], '127.0.0.1');
      assert.equal(seen['x-real-ip'], '127.0.0.1');
      // Not believed, still passed on as the client sent it.
      assert.equal(seen['x-original-forwarded-for'], '1.2.3.4');
      assert.equal((await get({ 'X-Forwarded-For': '1.2.3.4' }, DENIED_HOST)).status, 200);
    });
  });

  test('forwarded-for-header with enable-real-ip: the named header gives the address', async () => {
    await setSettings({ 'enable-real-ip': 'true', 'forwarded-for-header': 'X-Client-Address', 'proxy-real-ip-cidr': '127.0.0.1' });
    await settled(async () => {
      const seen = await echoedHeaders({ 'X-Client-Address': '9.8.7.6', 'X-Forwarded-For': '1.2.3.4' });
      assert.equal(seen['x-forwarded-for'], '9.8.7.6');
      assert.equal(seen['x-original-forwarded-for'], '9.8.7.6');
      // Not use-forwarded-headers: the client's X-Forwarded-Host is not believed.
      assert.equal(seen.host, HOST);
    });
  });
});

/** One HTTP/1.0 request on a raw TCP connection, `prefix` written first; resolves with all nginx sent until it closed. */
function rawRequest(prefix: Buffer, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: cluster.portico.ports.http });
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('raw request timed out')));
    // write, not end: nginx takes a half-closed connection for a client that gave up (499, no answer). HTTP/1.0: nginx closes after the answer.
    socket.on('connect', () => socket.write(Buffer.concat([prefix, Buffer.from(`GET / HTTP/1.0\r\nHost: ${host}\r\n\r\n`)])));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function echoedRaw(response: string): Record<string, string> {
  const [head = '', body = ''] = response.split('\r\n\r\n', 2);
  assert.match(head, /^HTTP\/1\.[01] 200 /, response.slice(0, 200));
  return echoed({ status: 200, headers: {}, body, certificate: undefined }).headers;
}

/** A PROXY protocol v2 header for TCP over IPv4. */
function proxyV2(source: string, destination: string, sourcePort: number, destinationPort: number): Buffer {
  const signature = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
  const header = Buffer.alloc(16);
  header.writeUInt8(0x21, 0); // version 2, PROXY
  header.writeUInt8(0x11, 1); // AF_INET, STREAM
  header.writeUInt16BE(12, 2);
  Buffer.from(source.split('.').map(Number)).copy(header, 4);
  Buffer.from(destination.split('.').map(Number)).copy(header, 8);
  header.writeUInt16BE(sourcePort, 12);
  header.writeUInt16BE(destinationPort, 14);
  return Buffer.concat([signature, header]);
}

describe('use-proxy-protocol', () => {
  test("a PROXY v1 or v2 header gives the client's address and port; a connection without one is refused", async () => {
    await setSettings({ 'use-proxy-protocol': 'true' });
    await settled(async () => {
      const v1 = echoedRaw(await rawRequest(Buffer.from('PROXY TCP4 192.168.0.1 192.168.0.11 56324 1234\r\n'), HOST));
      assert.equal(v1['x-forwarded-for'], '192.168.0.1');
      assert.equal(v1['x-real-ip'], '192.168.0.1');
      assert.equal(v1['x-forwarded-port'], '1234');
      assert.equal(v1['x-forwarded-proto'], 'http');

      // Its destination port 443: the client reached the load balancer over HTTPS.
      const https = echoedRaw(await rawRequest(Buffer.from('PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n'), HOST));
      assert.equal(https['x-forwarded-proto'], 'https');
      assert.equal(https['x-forwarded-scheme'], 'https');

      const v2 = echoedRaw(await rawRequest(proxyV2('203.0.113.7', '192.168.0.11', 40000, 8080), HOST));
      assert.equal(v2['x-forwarded-for'], '203.0.113.7');
      assert.equal(v2['x-forwarded-port'], '8080');

      // The denylist sees the PROXY header's address.
      const denied = await rawRequest(Buffer.from('PROXY TCP4 1.2.3.4 192.168.0.11 56324 80\r\n'), DENIED_HOST);
      assert.match(denied, /^HTTP\/1\.[01] 403 /);

      // nginx closes a connection whose first bytes are no PROXY header, without an answer.
      assert.equal(await rawRequest(Buffer.alloc(0), HOST), '');
      await assert.rejects(get({}), /socket hang up|ECONNRESET/);
    });
  });
});
