import { connect, createServer, type Server } from 'node:net';

/**
 * Finds `count` distinct free loopback TCP ports. All listeners are held open
 * until every port is known, so the same port is never handed out twice in
 * one call. (Another process may still take a port before our child binds it;
 * that window is small enough for tests.)
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      ports.push(await listenOnAnyPort(server));
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

function listenOnAnyPort(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('listening socket has no TCP address'));
        return;
      }
      resolve(address.port);
    });
  });
}

/**
 * A loopback port below 1024 that refuses connections. Tests and their children
 * take ports from the ephemeral range, so no other test can start listening on
 * it while a test relies on it being dead.
 */
export async function refusingLoopbackPort(): Promise<number> {
  for (let port = 1; port < 1024; port++) if (await refuses(port)) return port;
  throw new Error('every loopback port below 1024 accepts connections');
}

function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}
