// TCP and UDP services (--tcp-services-configmap, --udp-services-configmap)
// through the real API server, Portico and nginx's stream block, to echo
// backends in the test network: bytes round-trip; `::PROXY` sends the
// client's address to the backend in a PROXY v1 header, `:PROXY` expects one
// from the client; an edit of the ConfigMap adds and removes ports; bad
// entries are Warnings on the ConfigMap while the good ones serve; endpoint
// changes (each a reload) fail no connection, established ones included.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import type { CoreV1Event } from '@kubernetes/client-node';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import type { NetnsService } from '../support/netnsService.js';
import { appliedConfigurations, readFrom } from '../support/porticoLog.js';
import { startStreamEcho, tcpRoundTrip, udpRoundTrip } from '../support/streamEcho.js';

const TCP_CONFIGMAP = 'tcp-services';
const UDP_CONFIGMAP = 'udp-services';
const SERVICE = 'echo';
const WAIT = { timeoutMs: 30_000, intervalMs: 200 };
/** The load while endpoints change: at least this many connections, this many at a time. */
const LOAD_CONNECTIONS = 200;
const LOAD_PARALLEL = 4;
/** A bound on the load whatever happens. */
const MAX_LOAD_CONNECTIONS = 5_000;

let cluster: E2eCluster;
let echoes: NetnsService[] = [];
/** Free ports for the services: plain, decode, encode, UDP, added later. */
let ports: { plain: number; decode: number; encode: number; udp: number; added: number };

before(async () => {
  const namespace = await createTestNamespace((await sharedControlPlane()).adminKubeconfig, 'tcpudp');
  const [plain = 0, decode = 0, encode = 0, udp = 0, added = 0] = await freeLoopbackPorts(5);
  ports = { plain, decode, encode, udp, added };
  cluster = await startE2eCluster(
    'tcpudp',
    [`--tcp-services-configmap=${namespace}/${TCP_CONFIGMAP}`, `--udp-services-configmap=${namespace}/${UDP_CONFIGMAP}`],
    { namespace },
  );
  echoes = [await startStreamEcho(cluster.network), await startStreamEcho(cluster.network)];
  await cluster.core.createNamespacedService({
    namespace,
    body: {
      metadata: { name: SERVICE },
      spec: {
        ports: [
          { name: 'tcp', port: 7000, protocol: 'TCP' },
          { name: 'udp', port: 7000, protocol: 'UDP' },
        ],
      },
    },
  });
  await setEndpoints([echoes[0]!]);
  await putConfigMap(TCP_CONFIGMAP, {
    [String(ports.plain)]: `${namespace}/${SERVICE}:7000`,
    [String(ports.decode)]: `${namespace}/${SERVICE}:tcp:PROXY`,
    [String(ports.encode)]: `${namespace}/${SERVICE}:7000::proxy`,
  });
  await putConfigMap(UDP_CONFIGMAP, { [String(ports.udp)]: `${namespace}/${SERVICE}:udp` });
  await eventually(() => roundTrip(ports.plain), WAIT);
});
after(async () => {
  await cluster?.close();
  await Promise.all(echoes.map((echo) => echo.stop()));
});

/**
 * The Service's endpoints: one EndpointSlice per echo (each listens on a port of its own, TCP and UDP at one number,
 * streamEcho.ts), created for the echoes given and deleted for the others.
 */
async function setEndpoints(backends: readonly NetnsService[]): Promise<void> {
  const { namespace } = cluster;
  for (const [index, echo] of echoes.entries()) {
    const name = `${SERVICE}-${index}`;
    const existing = await cluster.discovery.readNamespacedEndpointSlice({ namespace, name }).catch(() => undefined);
    if (!backends.includes(echo)) {
      if (existing) await cluster.discovery.deleteNamespacedEndpointSlice({ namespace, name });
      continue;
    }
    if (existing) continue;
    await cluster.discovery.createNamespacedEndpointSlice({
      namespace,
      body: {
        metadata: { name, labels: { 'kubernetes.io/service-name': SERVICE } },
        addressType: 'IPv4',
        endpoints: [{ addresses: [echo.address], conditions: { ready: true } }],
        ports: [
          { name: 'tcp', port: echo.port, protocol: 'TCP' },
          { name: 'udp', port: echo.port, protocol: 'UDP' },
        ],
      },
    });
  }
}

async function putConfigMap(name: string, data: Record<string, string>): Promise<void> {
  const { namespace } = cluster;
  try {
    await cluster.core.replaceNamespacedConfigMap({ namespace, name, body: { metadata: { name }, data } });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
    await cluster.core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data } });
  }
}

/** One connection through the service's port: random bytes out, the same bytes back. */
async function roundTrip(port: number): Promise<void> {
  const payload = randomBytes(4096);
  const back = await tcpRoundTrip({ host: '127.0.0.1', port }, payload);
  assert.ok(back.equals(payload), 'the bytes came back unchanged');
}

async function configMapWarnings(name: string): Promise<string[]> {
  const events = await cluster.core.listNamespacedEvent({
    namespace: cluster.namespace,
    fieldSelector: `involvedObject.kind=ConfigMap,involvedObject.name=${name}`,
  });
  return events.items.filter((event: CoreV1Event) => event.type === 'Warning').map((event) => `${event.reason}: ${event.message}`);
}

/** Runs `change`, then waits for a reload after it. */
async function reloadAfter(change: () => Promise<void>): Promise<void> {
  const log = cluster.portico.process.logPath;
  const offset = (await stat(log)).size;
  await change();
  await eventually(async () => {
    assert.ok(appliedConfigurations(await readFrom(log, offset)).reloads > 0, `no reload yet\n${cluster.portico.logTail(10)}`);
  }, WAIT);
}

test('TCP: the bytes round-trip through the stream server', async () => {
  for (let i = 0; i < 5; i++) await roundTrip(ports.plain);
});

test('UDP: a datagram comes back through the stream server', async () => {
  const payload = randomBytes(512);
  const back = await eventually(() => udpRoundTrip({ host: '127.0.0.1', port: ports.udp }, payload), WAIT);
  assert.ok(back.equals(payload));
});

test("::PROXY: the backend gets a PROXY v1 header with the client's address, then the bytes", async () => {
  // From the host's own non-loopback address, so the header's source is not just 127.0.0.1.
  const client = cluster.network.hostAddress;
  const payload = randomBytes(1024);
  const { received, localPort } = await new Promise<{ received: Buffer; localPort: number | undefined }>((resolve, reject) => {
    const socket = connect({ host: client, port: ports.encode, localAddress: client }, () => socket.write(payload));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no header and bytes back within 5 s')), 5_000);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const all = Buffer.concat(chunks);
      const headerEnd = all.indexOf('\r\n');
      if (headerEnd >= 0 && all.length >= headerEnd + 2 + payload.length) {
        clearTimeout(timer);
        resolve({ received: all, localPort: socket.localPort });
        socket.destroy();
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  const headerEnd = received.indexOf('\r\n');
  const header = received.subarray(0, headerEnd).toString('latin1');
  assert.equal(
    header,
    `PROXY TCP4 ${client} ${client} ${localPort} ${ports.encode}`,
    "the client's address and port, and where it connected",
  );
  assert.ok(received.subarray(headerEnd + 2).equals(payload), 'then the bytes, unchanged');
  // The plain port sends no header: the bytes come back as they were.
  await roundTrip(ports.plain);
});

test(':PROXY: the listener expects a PROXY header, the backend gets the bytes after it; without one, no service', async () => {
  const payload = randomBytes(1024);
  const header = Buffer.from('PROXY TCP4 203.0.113.7 198.51.100.1 40000 5432\r\n');
  const back = await tcpRoundTrip({ host: '127.0.0.1', port: ports.decode }, Buffer.concat([header, payload]), payload.length);
  assert.ok(back.equals(payload), 'the header was taken off, the rest passed');
  // Raw bytes that are no PROXY header: nginx closes the connection without passing them on.
  await assert.rejects(tcpRoundTrip({ host: '127.0.0.1', port: ports.decode }, Buffer.from('not a PROXY header at all\r\n')));
});

test('bad entries are Warnings on their ConfigMap, the good ones keep serving', async () => {
  const { namespace } = cluster;
  const good = {
    [String(ports.plain)]: `${namespace}/${SERVICE}:7000`,
    [String(ports.decode)]: `${namespace}/${SERVICE}:tcp:PROXY`,
    [String(ports.encode)]: `${namespace}/${SERVICE}:7000::PROXY`,
  };
  await putConfigMap(TCP_CONFIGMAP, {
    ...good,
    [String(cluster.portico.ports.http)]: `${namespace}/${SERVICE}:7000`,
    '70000': `${namespace}/${SERVICE}:7000`,
    '9': `${namespace}/missing:7000`,
    '10': `${namespace}/${SERVICE}:nope`,
    '11': `${namespace}/${SERVICE}:udp`,
    '12': 'no-namespace:7000',
  });
  await eventually(async () => {
    const warnings = (await configMapWarnings(TCP_CONFIGMAP)).sort();
    assert.deepEqual(warnings, [
      `InvalidStreamService: TCP port "12": value "no-namespace:7000" is not namespace/service:port[:PROXY[:PROXY]]: "no-namespace" is not namespace/service; the entry is ignored`,
      `InvalidStreamService: TCP port "70000": the key must be a port number from 1 to 65535; the entry is ignored`,
      `ReservedPort: TCP port ${cluster.portico.ports.http} is one of Portico's own ports; the entry is ignored`,
      `ServiceNotFound: TCP port 9: Service ${namespace}/missing not found; the port is not served`,
      `ServicePortNotFound: TCP port 10: Service ${namespace}/${SERVICE} has no TCP port "nope"; the port is not served`,
      `ServicePortNotFound: TCP port 11: Service ${namespace}/${SERVICE} has no TCP port "udp"; the port is not served`,
    ]);
  }, WAIT);
  await roundTrip(ports.plain);
  await putConfigMap(TCP_CONFIGMAP, good);
});

test('an edit of the ConfigMap adds a port and removes one, which then refuses connections', async () => {
  const { namespace } = cluster;
  await reloadAfter(() =>
    putConfigMap(TCP_CONFIGMAP, {
      [String(ports.plain)]: `${namespace}/${SERVICE}:7000`,
      [String(ports.added)]: `${namespace}/${SERVICE}:tcp`,
    }),
  );
  await eventually(() => roundTrip(ports.added), WAIT);
  await roundTrip(ports.plain);
  await eventually(async () => {
    await assert.rejects(tcpRoundTrip({ host: '127.0.0.1', port: ports.decode }, Buffer.from('x')), /ECONNREFUSED/);
  }, WAIT);
});

test('endpoint changes under load: a new endpoint, an endpoint gone, 0 failed connections, established ones kept', async () => {
  const held = await Promise.all([0, 1, 2].map(() => openHeld(ports.plain)));
  let changesDone = false;
  let made = 0;
  const failures: string[] = [];
  const worker = async () => {
    while ((!changesDone || made < LOAD_CONNECTIONS) && made < MAX_LOAD_CONNECTIONS) {
      made++;
      await roundTrip(ports.plain).catch((error: unknown) => failures.push((error as Error).message));
    }
  };
  const load = Promise.all(Array.from({ length: LOAD_PARALLEL }, worker));
  try {
    await reloadAfter(() => setEndpoints(echoes));
    for (const connection of held) await connection.roundTrip();
    await reloadAfter(() => setEndpoints([echoes[1]!]));
    for (const connection of held) await connection.roundTrip();
  } finally {
    changesDone = true;
    await load;
  }
  assert.deepEqual(failures, [], `${failures.length} of ${made} connections failed`);
  assert.ok(made >= LOAD_CONNECTIONS);
  for (const connection of held) connection.close();
  // Only the second endpoint is left: with the first one stopped, new connections still succeed.
  await echoes[0]!.stop();
  for (let i = 0; i < 10; i++) await roundTrip(ports.plain);
});

/** A connection kept open across reloads, with a round trip on demand. */
async function openHeld(port: number): Promise<{ roundTrip(): Promise<void>; close(): void }> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const opened = connect({ host: '127.0.0.1', port }, () => resolve(opened));
    opened.once('error', reject);
  });
  let pending: { expected: Buffer; received: Buffer[]; resolve(): void; reject(error: Error): void } | undefined;
  socket.on('data', (chunk: Buffer) => {
    if (!pending) return;
    pending.received.push(chunk);
    const all = Buffer.concat(pending.received);
    if (all.length >= pending.expected.length) {
      const done = pending;
      pending = undefined;
      if (all.equals(done.expected)) done.resolve();
      else done.reject(new Error('the held connection echoed other bytes'));
    }
  });
  socket.on('close', () => pending?.reject(new Error('the held connection was closed')));
  return {
    roundTrip: () =>
      new Promise<void>((resolve, reject) => {
        const expected = randomBytes(256);
        const timer = setTimeout(() => reject(new Error('the held connection did not echo within 5 s')), 5_000);
        pending = {
          expected,
          received: [],
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        socket.write(expected);
      }),
    close: () => socket.destroy(),
  };
}
