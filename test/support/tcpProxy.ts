import { connect, createServer, type Socket } from 'node:net';

/**
 * A loopback TCP proxy whose connections a test can break (cut) or freeze
 * (stall), to simulate a failed or half-open link between the controller and
 * the API server.
 */
export interface TcpProxy {
  /** The loopback port clients connect to. */
  readonly port: number;
  /** Resets every open connection and refuses new ones until resume(). */
  cut(): void;
  /** Keeps connections (and new ones) open but forwards no bytes until resume(). */
  stall(): void;
  /** Forwards again: new connections are accepted and stalled ones flow. */
  resume(): void;
  close(): Promise<void>;
}

type ProxyState = 'forwarding' | 'stalled' | 'cut';

/** A client connection and its upstream twin. */
interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let state: ProxyState = 'forwarding';
  const links = new Set<Link>();

  const server = createServer({ pauseOnConnect: true }, (client) => {
    if (state === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: targetHost, port: targetPort });
    const link = { client, upstream };
    links.add(link);
    const tearDown = (): void => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', tearDown);
      socket.on('close', tearDown);
    }
    forward(client, upstream, () => state === 'stalled');
    forward(upstream, client, () => state === 'stalled');
    // The client socket starts paused (pauseOnConnect); the upstream one flows once it has a 'data' listener.
    if (state === 'stalled') upstream.pause();
    else client.resume();
  });

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('proxy has no TCP address'));
      else resolve(address.port);
    });
  });

  const cut = (): void => {
    state = 'cut';
    for (const { client, upstream } of links) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    links.clear();
  };

  return {
    port,
    cut,
    stall: () => {
      state = 'stalled';
      // Unread bytes stay in kernel buffers, so peers see a silent connection, not a closed one.
      for (const { client, upstream } of links) {
        client.pause();
        upstream.pause();
      }
    },
    resume: () => {
      state = 'forwarding';
      for (const { client, upstream } of links) {
        client.resume();
        upstream.resume();
      }
    },
    close: async () => {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Copies bytes from `from` to `to` with backpressure. Not stream.pipe(): pipe
 * resumes its source on 'drain' and would undo a stall.
 */
function forward(from: Socket, to: Socket, isStalled: () => boolean): void {
  from.on('data', (chunk: Buffer) => {
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => {
        if (!isStalled()) from.resume();
      });
    }
  });
  from.on('end', () => to.end());
}
