/**
 * A TCP and UDP echo backend for the stream tests, run as its own process in a
 * test network: every byte a TCP connection sends comes back on it (a PROXY
 * header nginx sends included, so the client sees what the backend received),
 * every UDP datagram is answered with itself. Both listen on one port.
 *
 * As a script: node --import tsx test/support/streamEcho.ts --listen 198.18.1.5:0
 * prints `listening <address>:<port>` once both accept.
 */
import { createSocket } from 'node:dgram';
import { connect, createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startNetnsService, type NetnsService } from './netnsService.js';
import type { TestNetwork } from './testNetwork.js';

/** Starts an echo on a new address of `network`. */
export function startStreamEcho(network: TestNetwork): Promise<NetnsService> {
  return startNetnsService(network, 'stream echo', fileURLToPath(import.meta.url));
}

/** Connects (from `localAddress` when given), writes `payload`, and resolves with the first `expected` bytes that come back. */
export function tcpRoundTrip(
  target: { host: string; port: number; localAddress?: string },
  payload: Buffer,
  expected = payload.length,
  timeoutMs = 5_000,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.host, port: target.port, localAddress: target.localAddress });
    const chunks: Buffer[] = [];
    let received = 0;
    const timer = setTimeout(
      () => socket.destroy(new Error(`no ${expected} bytes back within ${timeoutMs} ms (got ${received})`)),
      timeoutMs,
    );
    socket.on('connect', () => socket.write(payload));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= expected) {
        clearTimeout(timer);
        socket.end();
        resolve(Buffer.concat(chunks).subarray(0, expected));
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (received < expected) reject(new Error(`connection closed after ${received} of ${expected} bytes`));
    });
  });
}

/** Sends `payload` in one datagram and resolves with the first datagram that comes back. */
export function udpRoundTrip(target: { host: string; port: number }, payload: Buffer, timeoutMs = 2_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no datagram back within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('message', (message) => {
      clearTimeout(timer);
      socket.close();
      resolve(message);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      socket.close();
      reject(error);
    });
    socket.send(payload, target.port, target.host);
  });
}

function serve(listen: string): void {
  const separator = listen.lastIndexOf(':');
  const host = listen.slice(0, separator);
  const tcp = createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.pipe(socket);
  });
  tcp.listen(Number(listen.slice(separator + 1)), host, () => {
    const { port } = tcp.address() as AddressInfo;
    const udp = createSocket('udp4');
    udp.on('message', (message, peer) => udp.send(message, peer.port, peer.address));
    udp.bind(port, host, () => process.stdout.write(`listening ${host}:${port}\n`));
  });
  process.on('SIGTERM', () => process.exit(0));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { listen: { type: 'string' } } });
  if (values.listen === undefined) throw new Error('--listen <address>:<port> is required');
  serve(values.listen);
}
