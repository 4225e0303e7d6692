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

/** One nginx worker flushes per connection; anything beyond this many at once is not ours. */
const MAX_CONNECTIONS = 64;
const CONNECTION_TIMEOUT_MS = 10_000;

export class BatchListener {
  /** First line of every batch: a number only nginx.conf and this process know, so other local processes cannot feed metrics. */
  readonly token = randomInt(1, 2 ** 47);

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(options: BatchListenerOptions): Promise<BatchListener> {
    const server = createServer((socket) => receive(socket, options));
    server.maxConnections = MAX_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the batch listener has no TCP port');
    const listener = new BatchListener(server, address.port);
    options.logger.debug({ port: listener.port }, 'listening for request metrics from nginx');
    return listener;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function receive(socket: Socket, options: BatchListenerOptions): void {
  const chunks: Buffer[] = [];
  let size = 0;
  socket.setTimeout(CONNECTION_TIMEOUT_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > options.maxBatchBytes) {
      options.logger.warn({ maxBytes: options.maxBatchBytes }, 'request metrics batch too large; dropped');
      socket.destroy();
      return;
    }
    chunks.push(chunk);
  });
  socket.on('end', () => {
    socket.end();
    options.onBatch(Buffer.concat(chunks, size).toString('utf8'));
  });
}
