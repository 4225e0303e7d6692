// Where nginx's workers deliver request records: a TCP listener on
// 127.0.0.1, one connection per batch (connect, write, close), about once a
// second per worker. Loopback TCP rather than ingress-nginx's unix socket:
// the port is an integer, so it reaches the Lua call through luaCall like any
// other option; workers running as another user need no file permissions; no
// stale socket file. The cost is the same either way: one connection per
// worker per second, nothing per request.
import { randomInt } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '../log/logger.js';

export interface BatchListenerOptions {
  /** The largest batch accepted (bytes); a longer one is dropped whole. */
  maxBatchBytes: number;
  onBatch(payload: string): void;
  logger: Logger;
}

/** Each nginx worker has at most two batches on the way; anything beyond this many at once is not ours. */
const MAX_CONNECTIONS = 256;
const CONNECTION_TIMEOUT_MS = 10_000;

export class BatchListener {
  private constructor(
    private readonly server: Server,
    readonly port: number,
    /**
     * First line of every batch: a number only nginx.conf and this process
     * know, so another local process can neither feed metrics nor make this
     * one buffer its data (a connection is dropped at its first wrong byte).
     */
    readonly token: number,
  ) {}

  static async start(options: BatchListenerOptions): Promise<BatchListener> {
    const token = randomInt(1, 2 ** 47);
    const server = createServer((socket) => receive(socket, `${token}\n`, options));
    server.maxConnections = MAX_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.on('error', (error) => options.logger.error({ err: error.message }, 'request metrics listener failed'));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the batch listener has no TCP port');
    options.logger.debug({ port: address.port }, 'listening for request metrics from nginx');
    return new BatchListener(server, address.port, token);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function receive(socket: Socket, tokenLine: string, options: BatchListenerOptions): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let verified = false;
  const drop = (reason: string): void => {
    options.logger.warn({ reason }, 'request metrics batch dropped');
    socket.destroy();
  };
  socket.setTimeout(CONNECTION_TIMEOUT_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    if (size > options.maxBatchBytes) return drop(`larger than ${options.maxBatchBytes} bytes`);
    if (verified) return;
    const head = Buffer.concat(chunks).toString('latin1', 0, tokenLine.length);
    if (!tokenLine.startsWith(head)) return drop('wrong token');
    verified = head.length === tokenLine.length;
  });
  socket.on('end', () => {
    socket.end();
    options.onBatch(Buffer.concat(chunks, size).toString('utf8'));
  });
}
