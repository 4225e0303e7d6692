/**
 * An external authentication service for the tests (what oauth2-proxy or
 * Authelia are behind auth-url), run as its own process in a test network:
 * - the request header `x-test-auth: allow` → 200 with `X-Auth-User: alice`
 *   (and `Set-Cookie: auth-session=1` when `x-test-cookie` is set, which nginx
 *   would not cache);
 * - `x-test-auth: forbid` → 403; anything else → 401;
 * - `GET /_requests` (not counted) → `{ count, connections, last }`: how many
 *   auth requests it answered, over how many distinct TCP connections, and the
 *   method, target and headers of the last one.
 *
 * As a script: node --import tsx test/support/externalAuthService.ts --listen 198.18.1.5:0
 * prints `listening <address>:<port>` once it accepts connections.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { httpGet } from './httpGet.js';
import { startNetnsService } from './netnsService.js';
import type { TestNetwork } from './testNetwork.js';

export interface AuthRequestLog {
  count: number;
  /** Distinct client connections the counted requests came over (keep-alive reuses one). */
  connections: number;
  last: { method: string; url: string; headers: IncomingHttpHeaders } | undefined;
}

export interface ExternalAuthService {
  address: string;
  port: number;
  /** What the service has seen so far. */
  requests(): Promise<AuthRequestLog>;
  stop(): Promise<void>;
}

/** Starts the service on a new address of `network`. */
export async function startExternalAuthService(network: TestNetwork): Promise<ExternalAuthService> {
  const service = await startNetnsService(network, 'external auth service', fileURLToPath(import.meta.url));
  return {
    ...service,
    async requests() {
      const result = await httpGet({ address: service.address, port: service.port, path: '/_requests' });
      return JSON.parse(result.body) as AuthRequestLog;
    },
  };
}

function serve(listen: string): void {
  const separator = listen.lastIndexOf(':');
  const log: AuthRequestLog = { count: 0, connections: 0, last: undefined };
  const seen = new WeakSet<object>();
  const server = createServer((request, response) => {
    if (request.url === '/_requests') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log));
      return;
    }
    log.count++;
    if (!seen.has(request.socket)) {
      seen.add(request.socket);
      log.connections++;
    }
    log.last = { method: request.method ?? '', url: request.url ?? '', headers: request.headers };
    const verdict = request.headers['x-test-auth'];
    if (verdict === 'allow') {
      const cookie = request.headers['x-test-cookie'] === undefined ? {} : { 'set-cookie': 'auth-session=1' };
      response.writeHead(200, { 'x-auth-user': 'alice', 'content-length': '0', ...cookie }).end();
    } else {
      response.writeHead(verdict === 'forbid' ? 403 : 401, { 'content-length': '0' }).end();
    }
  });
  server.listen(Number(listen.slice(separator + 1)), listen.slice(0, separator), () => {
    process.stdout.write(`listening ${listen.slice(0, separator)}:${(server.address() as AddressInfo).port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { listen: { type: 'string' } } });
  if (values.listen === undefined) throw new Error('--listen <address>:<port> is required');
  serve(values.listen);
}
