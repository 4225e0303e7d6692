/**
 * An HTTP/1.1 backend that describes each request it receives, so a test can
 * see what the proxy in front of it forwarded (and to which instance).
 * Two long-lived exchanges, for tests of what a proxy reload does to them:
 * - `GET /stream/<chunks>/<intervalMs>` answers with that many lines, one
 *   every intervalMs (`<instance> <i>/<chunks>`), as a chunked response;
 * - a WebSocket upgrade (RFC 6455) on any path echoes every message back.
 * `GET /response-headers?<name>=<value>&...` adds those response headers
 * (URL-decoded), as a backend's Set-Cookie or Location, for tests of what the
 * proxy does to them.
 *
 * As a script:
 *   node --import tsx tools/echo/echoServer.ts --listen 198.18.1.2:8080 \
 *     --service web --instance web-1 [--tls-cert cert.pem --tls-key key.pem [--tls-client-ca ca.pem]]
 * prints `listening <address>:<port>` once it accepts connections.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The JSON body of every echo response. */
export interface EchoResponse {
  readonly service: string;
  readonly instance: string;
  readonly host: string;
  readonly method: string;
  /** The request's HTTP version as received (`1.0`, `1.1`): what the proxy spoke. */
  readonly httpVersion: string;
  /** The request target up to `?`, exactly as received (no normalisation or decoding). */
  readonly path: string;
  /** The request target after the first `?`, exactly as received; '' without one. */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  /** Present only when the request had a body (decoded as UTF-8). */
  readonly body?: string;
  readonly tls: boolean;
  /** Over TLS: what the handshake negotiated, so a test sees what the proxy offered. */
  readonly tlsSession?: TlsSession;
}

export interface TlsSession {
  /** `TLSv1.2`, `TLSv1.3`. */
  readonly protocol: string;
  /** OpenSSL's name of the cipher. */
  readonly cipher: string;
  /** The SNI name the client sent; undefined without one. */
  readonly serverName: string | undefined;
  /** The subject CN of the client's certificate (required and verified with clientCa). */
  readonly clientCertificate: string | undefined;
}

export interface EchoServerOptions {
  readonly service: string;
  readonly instance: string;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** `clientCa`: only clients with a certificate it issued complete the handshake. */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer; readonly clientCa?: string | Buffer };
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
// `/stream/<lines>/<intervalMs>`: see the top of the file.
const streamPath = /^\/stream\/(\d{1,4})\/(\d{1,5})$/;
const responseHeadersPath = '/response-headers';

export async function startEchoServer(options: EchoServerOptions): Promise<RunningEchoServer> {
  const tls = options.tls !== undefined;
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    void answer(request, response, options, tls);
  };
  const clientCa = options.tls?.clientCa;
  const clientAuthentication = clientCa === undefined ? {} : { ca: clientCa, requestCert: true, rejectUnauthorized: true };
  const server: Server = tls
    ? createHttpsServer({ cert: options.tls?.cert, key: options.tls?.key, ...clientAuthentication }, handler)
    : createHttpServer(handler);
  server.keepAliveTimeout = keepAliveTimeoutMs;
  // Upgraded sockets leave the server's books; close() must end them itself.
  const webSockets = new Set<Duplex>();
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    webSockets.add(socket);
    socket.on('close', () => webSockets.delete(socket));
    acceptWebSocket(request, socket, head);
  });

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
        for (const socket of webSockets) socket.destroy();
      }),
  };
}

function tlsSession(socket: TLSSocket): TlsSession {
  const servername = (socket as TLSSocket & { servername?: string | false }).servername;
  const commonName = socket.getPeerCertificate().subject?.CN;
  return {
    protocol: socket.getProtocol() ?? '',
    cipher: socket.getCipher().name,
    serverName: typeof servername === 'string' ? servername : undefined,
    clientCertificate: typeof commonName === 'string' ? commonName : undefined,
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
    httpVersion: request.httpVersion,
    path,
    query: queryStart === -1 ? '' : target.slice(queryStart + 1),
    headers: request.headers,
    ...(body.length > 0 ? { body: body.toString('utf8') } : {}),
    tls,
    ...(request.socket instanceof TLSSocket ? { tlsSession: tlsSession(request.socket) } : {}),
  };

  const stream = streamPath.exec(path);
  if (stream !== null) {
    streamLines(response, options.instance, Number(stream[1]), Number(stream[2]));
    return;
  }

  const delayMs = Number(delayPath.exec(path)?.[1] ?? 0);
  if (delayMs > 0) await new Promise((resolveDelay) => setTimeout(resolveDelay, delayMs));
  const status = Number(statusPath.exec(path)?.[1] ?? 200);
  // These statuses must not carry a body (RFC 9110); Node would drop it anyway.
  if (status < 200 || status === 204 || status === 304) {
    response.writeHead(status).end();
    return;
  }
  const json = JSON.stringify(echo);
  const extra = path === responseHeadersPath ? Object.fromEntries(new URLSearchParams(echo.query)) : {};
  response.writeHead(status, { ...extra, 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) }).end(json);
}

/** Writes `chunks` lines, one every `intervalMs`, then ends; stops early if the client goes away. */
function streamLines(response: ServerResponse, instance: string, chunks: number, intervalMs: number): void {
  // X-Accel-Buffering: nginx passes each line on at once, as it would for any streaming backend that asks.
  response.writeHead(200, { 'content-type': 'text/plain', 'x-accel-buffering': 'no' });
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const next = (): void => {
    if (sent === chunks) {
      response.end();
      return;
    }
    response.write(`${instance} ${++sent}/${chunks}\n`);
    timer = setTimeout(next, intervalMs);
  };
  response.on('close', () => clearTimeout(timer));
  next();
}

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const Opcode = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/**
 * The server side of RFC 6455, just enough for an echo: every data frame goes
 * back as it came (fragments as fragments, so messages need no reassembly),
 * a ping gets its pong, a close its close.
 */
function acceptWebSocket(request: IncomingMessage, socket: Duplex, head: Buffer): void {
  const key = request.headers['sec-websocket-key'];
  if (request.headers.upgrade?.toLowerCase() !== 'websocket' || typeof key !== 'string') {
    socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    return;
  }
  const accept = createHash('sha1')
    .update(key + WEBSOCKET_GUID)
    .digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`);
  socket.on('error', () => socket.destroy());
  let pending = head;
  const onData = (chunk: Buffer): void => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (let frame = readFrame(pending); frame !== undefined; frame = readFrame(pending)) {
      pending = pending.subarray(frame.size);
      if (frame.opcode === Opcode.close) {
        socket.end(writeFrame(true, Opcode.close, frame.payload));
        socket.off('data', onData);
        return;
      }
      if (frame.opcode === Opcode.ping) socket.write(writeFrame(true, Opcode.pong, frame.payload));
      else if (frame.opcode !== Opcode.pong) socket.write(writeFrame(frame.fin, frame.opcode, frame.payload));
    }
  };
  socket.on('data', onData);
  if (head.length > 0) onData(Buffer.alloc(0));
}

interface Frame {
  readonly fin: boolean;
  readonly opcode: number;
  readonly payload: Buffer;
  /** Bytes the frame took in the stream. */
  readonly size: number;
}

/** The first complete frame in `buffer` (unmasked), or undefined until one has arrived. */
function readFrame(buffer: Buffer): Frame | undefined {
  if (buffer.length < 2) return undefined;
  const first = buffer[0] ?? 0;
  const second = buffer[1] ?? 0;
  const masked = (second & 0x80) !== 0;
  let length = second & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  const maskOffset = offset;
  if (masked) offset += 4;
  if (buffer.length < offset + length) return undefined;
  const payload = Buffer.from(buffer.subarray(offset, offset + length));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] ?? 0) ^ (buffer[maskOffset + (i % 4)] ?? 0);
  return { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload, size: offset + length };
}

/** A server frame: never masked (RFC 6455 §5.1). */
function writeFrame(fin: boolean, opcode: number, payload: Buffer): Buffer {
  const first = (fin ? 0x80 : 0) | opcode;
  if (payload.length < 126) return Buffer.concat([Buffer.from([first, payload.length]), payload]);
  if (payload.length < 0x10000) {
    const header = Buffer.from([first, 126, 0, 0]);
    header.writeUInt16BE(payload.length, 2);
    return Buffer.concat([header, payload]);
  }
  const header = Buffer.alloc(10);
  header[0] = first;
  header[1] = 127;
  header.writeBigUInt64BE(BigInt(payload.length), 2);
  return Buffer.concat([header, payload]);
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
      'tls-client-ca': { type: 'string' },
    },
    strict: true,
  });
  const { listen, service, instance } = values;
  if (listen === undefined || service === undefined || instance === undefined) {
    throw new Error(
      'usage: echoServer --listen host:port --service NAME --instance NAME [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]',
    );
  }
  const certFile = values['tls-cert'];
  const keyFile = values['tls-key'];
  if ((certFile === undefined) !== (keyFile === undefined)) throw new Error('--tls-cert and --tls-key go together');
  const clientCaFile = values['tls-client-ca'];
  if (clientCaFile !== undefined && certFile === undefined) throw new Error('--tls-client-ca needs --tls-cert and --tls-key');

  const { host, port } = parseListen(listen);
  const running = await startEchoServer({
    service,
    instance,
    host,
    port,
    ...(certFile !== undefined && keyFile !== undefined
      ? {
          tls: {
            cert: readFileSync(certFile),
            key: readFileSync(keyFile),
            ...(clientCaFile === undefined ? {} : { clientCa: readFileSync(clientCaFile) }),
          },
        }
      : {}),
  });
  process.stdout.write(`listening ${running.address}:${running.port}\n`);
}

// realpath: the script may be reached through a symlink (e.g. a linked checkout).
const runAsScript =
  process.argv[1] !== undefined && realpathSync(resolve(process.argv[1])) === realpathSync(fileURLToPath(import.meta.url));
if (runAsScript) {
  main().catch((error: unknown) => {
    process.stderr.write(`echo server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
