import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/**
 * Finds `count` distinct free TCP ports, each free on every IPv4 address (as
 * nginx binds `listen <port>`). All listeners are held open until every port
 * is known, so the same port is never handed out twice in one call.
 *
 * The ports come from below the kernel's ephemeral range: a port from that
 * range (what `listen(0)` returns) can be taken as the source port of any
 * outgoing connection between this check and the child's bind, and the tests
 * open many. Another process may still bind a port first; that window is
 * small enough for tests.
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    while (ports.length < count) {
      const server = createServer();
      const port = await listenOnUnusedPort(server, new Set(ports));
      servers.push(server);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

const ATTEMPTS = 200;
/** Where the search starts (ports below are more often fixed ones of other software). */
const LOWEST_PORT = 10_000;

/** The ports below the ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range, 32768 by default). */
function portsOutsideEphemeralRange(): { low: number; high: number } {
  let ephemeralLow = 32_768;
  try {
    const [low = Number.NaN] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low)) ephemeralLow = low;
  } catch {
    // not Linux: keep the default
  }
  if (ephemeralLow - 1 - LOWEST_PORT < 1_000) throw new Error(`the ephemeral port range starts at ${ephemeralLow}: too few ports below it for tests`);
  return { low: LOWEST_PORT, high: ephemeralLow - 1 };
}

const RANGE = portsOutsideEphemeralRange();

async function listenOnUnusedPort(server: Server, taken: ReadonlySet<number>): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = RANGE.low + Math.floor(Math.random() * (RANGE.high - RANGE.low + 1));
    if (taken.has(port)) continue;
    if (await listens(server, port)) return port;
  }
  throw new Error(`no free TCP port between ${RANGE.low} and ${RANGE.high} in ${ATTEMPTS} attempts`);
}

function listens(server: Server, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve(true);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, '0.0.0.0');
  });
}
