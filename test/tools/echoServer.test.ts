// The echo backend's long-lived exchanges, in process on loopback: the
// WebSocket echo against undici's client (an independent implementation of
// RFC 6455) and the timed /stream response.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { WebSocket } from 'undici';
import { startEchoServer, type EchoResponse, type RunningEchoServer } from '../../tools/echo/echoServer.js';
import { selfSignedCertificate } from '../support/tlsSecrets.js';

let server: RunningEchoServer;

before(async () => {
  server = await startEchoServer({ service: 'web', instance: 'web-1', host: '127.0.0.1', port: 0 });
});
after(() => server?.close());

async function openSocket(): Promise<{ socket: WebSocket; messages: unknown[]; closed: Promise<{ code: number; wasClean: boolean }> }> {
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/chat`);
  socket.binaryType = 'arraybuffer';
  const messages: unknown[] = [];
  socket.addEventListener('message', (event) => messages.push(event.data));
  const closed = new Promise<{ code: number; wasClean: boolean }>((resolve) =>
    socket.addEventListener('close', (event) => resolve({ code: event.code, wasClean: event.wasClean })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error('the WebSocket did not open')));
  });
  return { socket, messages, closed };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('a WebSocket echoes text and binary messages of every frame length form, and closes cleanly', async () => {
  const { socket, messages, closed } = await openSocket();
  const sent = ['hi', 'x'.repeat(200), 'y'.repeat(70_000)]; // 7-bit, 16-bit and 64-bit payload lengths
  for (const text of sent) socket.send(text);
  socket.send(new Uint8Array([0, 1, 255]));
  await until(() => messages.length === 4, 'four echoes');
  assert.deepEqual(messages.slice(0, 3), sent);
  assert.deepEqual([...new Uint8Array(messages[3] as ArrayBuffer)], [0, 1, 255]);
  socket.close(1000, 'done');
  assert.deepEqual(await closed, { code: 1000, wasClean: true });
});

test('closing the server ends its open WebSockets', async () => {
  const other = await startEchoServer({ service: 'web', instance: 'web-2', host: '127.0.0.1', port: 0 });
  const socket = new WebSocket(`ws://127.0.0.1:${other.port}/`);
  const closed = new Promise<number>((resolve) => socket.addEventListener('close', (event) => resolve(event.code)));
  await new Promise((resolve) => socket.addEventListener('open', resolve));
  await other.close();
  assert.equal(await closed, 1006);
});

test('an upgrade to anything but websocket is refused', async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/', headers: { connection: 'upgrade', upgrade: 'h2c' } });
    req.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('upgrade', () => reject(new Error('upgraded')));
    req.on('error', reject);
    req.end();
  });
  assert.equal(status, 400);
});

test('/stream/<lines>/<intervalMs> sends its lines one by one, unbuffered, then ends', async () => {
  const lines: string[] = [];
  let reads = 0;
  const startedAt = Date.now();
  const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/stream/3/100' }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        reads++;
        lines.push(...chunk.split('\n').filter(Boolean));
      });
      response.on('end', () => resolve(response.headers));
    });
    req.on('error', reject);
    req.end();
  });
  const elapsed = Date.now() - startedAt;
  assert.equal(headers['x-accel-buffering'], 'no');
  assert.equal(headers['transfer-encoding'], 'chunked');
  assert.deepEqual(lines, ['web-1 1/3', 'web-1 2/3', 'web-1 3/3']);
  // Timers never fire early, so the spacing shows in the total; a starved client may merge two reads, not all.
  assert.ok(elapsed >= 200, `the lines took ${elapsed} ms`);
  assert.ok(reads >= 2, `the lines came in ${reads} reads`);
});

test('over TLS the echo reports the handshake; with clientCa only clients with its certificate get through', async () => {
  const [serving, client] = await Promise.all([selfSignedCertificate(['echo.test']), selfSignedCertificate(['echo-client.test'])]);
  const server = await startEchoServer({
    service: 'tls',
    instance: 'tls-1',
    host: '127.0.0.1',
    port: 0,
    // A self-signed client certificate is its own issuer.
    tls: { cert: serving.certificatePem, key: serving.keyPem, clientCa: client.certificatePem },
  });
  try {
    const get = (options: RequestOptions): Promise<EchoResponse> =>
      new Promise((resolve, reject) => {
        const req = httpsRequest(
          { host: '127.0.0.1', port: server.port, rejectUnauthorized: false, servername: 'sni.test', ...options },
          (response) => {
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (body += chunk));
            response.on('end', () => resolve(JSON.parse(body) as EchoResponse));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const echo = await get({ cert: client.certificatePem, key: client.keyPem, maxVersion: 'TLSv1.2' });
    assert.equal(echo.tls, true);
    assert.deepEqual(
      { ...echo.tlsSession, cipher: undefined },
      {
        protocol: 'TLSv1.2',
        cipher: undefined,
        serverName: 'sni.test',
        clientCertificate: 'echo-client.test',
      },
    );
    assert.match(echo.tlsSession?.cipher ?? '', /^ECDHE-RSA-/);
    await assert.rejects(get({}));
  } finally {
    await server.close();
  }
});
