/**
 * An HTTP/1.1 backend that describes each request it receives, so a test can
 * see what the proxy in front of it forwarded (and to which instance).
 *
 * As a script:
 *   node --import tsx tools/echo/echoServer.ts --listen 198.18.1.2:8080 \
 *     --service web --instance web-1 [--tls-cert cert.pem --tls-key key.pem]
 * prints `listening <address>:<port>` once it accepts connections.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The JSON body of every echo response. */
export interface EchoResponse {
  readonly service: string;
  readonly instance: string;
  readonly host: string;
  readonly method: string;
  /** The request target up to `?`, exactly as received (no normalisation or decoding). */
  readonly path: string;
  /** The request target after the first `?`, exactly as received; '' without one. */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  /** Present only when the request had a body (decoded as UTF-8). */
  readonly body?: string;
  readonly tls: boolean;
}

export interface EchoServerOptions {
  readonly service: string;
  readonly instance: string;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
}

export interface RunningEchoServer {
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

// Longer than the proxy's upstream keep-alive (nginx: 60 s), so the backend
// never closes an idle connection the proxy is about to reuse (a spurious 502).
const keepAliveTimeoutMs = 75_000;

const statusPath = /^\/status\/([1-5]\d\d)$/;
// `/delay/<ms>` answers after that long (under 100 s): a slow backend.
const delayPath = /^\/delay\/(\d{1,5})$/;

export async function startEchoServer(options: EchoServerOptions): Promise<RunningEchoServer> {
  const tls = options.tls !== undefined;
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    void answer(request, response, options, tls);
  };
  const server: Server = tls
    ? createHttpsServer({ cert: options.tls?.cert, key: options.tls?.key }, handler)
    : createHttpServer(handler);
  server.keepAliveTimeout = keepAliveTimeoutMs;

  await new Promise<void>((resolveListening, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolveListening();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('echo server has no TCP address');

  return {
    address: address.address,
    port: address.port,
    close: () =>
      new Promise<void>((resolveClosed) => {
        server.close(() => resolveClosed());
        server.closeAllConnections();
      }),
  };
}

async function answer(request: IncomingMessage, response: ServerResponse, options: EchoServerOptions, tls: boolean): Promise<void> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of request) chunks.push(chunk as Buffer);
  } catch {
    return; // the client went away mid-body
  }
  const target = request.url ?? '';
  const queryStart = target.indexOf('?');
  const path = queryStart === -1 ? target : target.slice(0, queryStart);
  const body = Buffer.concat(chunks);
  const echo: EchoResponse = {
    service: options.service,
    instance: options.instance,
    host: request.headers.host ?? '',
    method: request.method ?? '',
    path,
    query: queryStart === -1 ? '' : target.slice(queryStart + 1),
    headers: request.headers,
    ...(body.length > 0 ? { body: body.toString('utf8') } : {}),
    tls,
  };

  const delayMs = Number(delayPath.exec(path)?.[1] ?? 0);
  if (delayMs > 0) await new Promise((resolveDelay) => setTimeout(resolveDelay, delayMs));
  const status = Number(statusPath.exec(path)?.[1] ?? 200);
  // These statuses must not carry a body (RFC 9110); Node would drop it anyway.
  if (status < 200 || status === 204 || status === 304) {
    response.writeHead(status).end();
    return;
  }
  const json = JSON.stringify(echo);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) }).end(json);
}

/** Splits `host:port`, `[ipv6]:port` or `ipv6-with-colons:port` at the last colon. */
function parseListen(listen: string): { host: string; port: number } {
  const colon = listen.lastIndexOf(':');
  const port = Number(listen.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--listen wants host:port, got ${listen}`);
  return { host: listen.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      listen: { type: 'string' },
      service: { type: 'string' },
      instance: { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
    },
    strict: true,
  });
  const { listen, service, instance } = values;
  if (listen === undefined || service === undefined || instance === undefined) {
    throw new Error('usage: echoServer --listen host:port --service NAME --instance NAME [--tls-cert FILE --tls-key FILE]');
  }
  const certFile = values['tls-cert'];
  const keyFile = values['tls-key'];
  if ((certFile === undefined) !== (keyFile === undefined)) throw new Error('--tls-cert and --tls-key go together');

  const { host, port } = parseListen(listen);
  const running = await startEchoServer({
    service,
    instance,
    host,
    port,
    ...(certFile !== undefined && keyFile !== undefined ? { tls: { cert: readFileSync(certFile), key: readFileSync(keyFile) } } : {}),
  });
  process.stdout.write(`listening ${running.address}:${running.port}\n`);
}

// realpath: the script may be reached through a symlink (e.g. a linked checkout).
const runAsScript = process.argv[1] !== undefined && realpathSync(resolve(process.argv[1])) === realpathSync(fileURLToPath(import.meta.url));
if (runAsScript) {
  main().catch((error: unknown) => {
    process.stderr.write(`echo server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
