// The validating admission webhook's HTTPS server. It never runs nginx (the
// CVE-2025-1974 chain ran `nginx -t` on a forged review): a review is parsed
// strictly and judged by pure code. Anyone who can reach the port can send
// one, so the body is capped while it streams (9 MB, as ingress-nginx after
// CVE-2026-24514), slow clients are cut off, and a bad review gets a 400,
// never a crash.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ingress } from '../kube/objects.js';
import type { Logger } from '../log/logger.js';
import { admissionResponse, parseAdmissionReview, type AdmissionVerdict } from './admissionReview.js';
import type { ListenAddress } from './listenAddress.js';

export const MAX_REVIEW_BYTES = 9 * 1024 * 1024;

export interface WebhookServerOptions {
  address: ListenAddress;
  /** PEM. */
  certificate: string | Buffer;
  key: string | Buffer;
  /** Judges an Ingress under review (CREATE or UPDATE, dry run or not). */
  review(ingress: Ingress): AdmissionVerdict;
  logger: Logger;
  maxBodyBytes?: number;
  /** Time a client has to send the whole request (headers and body). */
  requestTimeoutMs?: number;
}

export async function startWebhookServer(options: WebhookServerOptions): Promise<Server> {
  const requestTimeout = options.requestTimeoutMs ?? 10_000;
  const server = createServer(
    {
      cert: options.certificate,
      key: options.key,
      minVersion: 'TLSv1.2',
      handshakeTimeout: Math.min(requestTimeout, 5_000),
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 5_000),
      // Node checks the two timeouts above on this interval (30 s by default).
      connectionsCheckingInterval: Math.min(requestTimeout, 1_000),
    },
    (request, response) => {
      handle(request, response, options).catch((error: unknown) => {
        options.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'admission review failed');
        if (!response.headersSent) reply(response, 500, { error: 'internal error' });
      });
    },
  );
  // An idle connection (the API server keeps them alive) is closed after this long.
  server.keepAliveTimeout = 5_000;
  server.maxConnections = 1_024;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.address.port, options.address.host, () => resolve());
  });
  options.logger.info({ host: options.address.host ?? '*', port: options.address.port }, 'admission webhook listening');
  return server;
}

async function handle(request: IncomingMessage, response: ServerResponse, options: WebhookServerOptions): Promise<void> {
  const maxBytes = options.maxBodyBytes ?? MAX_REVIEW_BYTES;
  if (request.method !== 'POST') return reply(response, 405, { error: 'only POST' });
  if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
    return reply(response, 415, { error: 'content-type must be application/json' });
  }
  const body = await readBody(request, maxBytes);
  if (body === undefined) return refuseTooLarge(request, response, maxBytes);
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return reply(response, 400, { error: 'the body is not JSON' });
  }
  const parsed = parseAdmissionReview(json);
  if (!parsed.ok) return reply(response, 400, { error: parsed.error });
  const { request: review } = parsed;
  let verdict: AdmissionVerdict;
  switch (review.kind) {
    case 'unchecked':
      verdict = { allowed: true, warnings: [] };
      break;
    case 'malformed':
      verdict = { allowed: false, message: review.reason, warnings: [] };
      break;
    case 'ingress':
      verdict = options.review(review.ingress);
      options.logger.info(
        {
          uid: review.uid,
          ingress: `${review.ingress.metadata?.namespace}/${review.ingress.metadata?.name}`,
          operation: review.operation,
          dryRun: review.dryRun,
          allowed: verdict.allowed,
          ...(verdict.allowed ? {} : { reason: verdict.message }),
        },
        'admission review',
      );
  }
  reply(response, 200, admissionResponse(review.uid, verdict));
}

/** The body, or undefined as soon as it exceeds `maxBytes` (counted as it arrives, whatever Content-Length says). */
function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.off('data', onData);
        request.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks, size)));
    request.once('error', reject);
  });
}

/** 413, then the connection is closed: the rest of the body is never read. */
function refuseTooLarge(request: IncomingMessage, response: ServerResponse, maxBytes: number): void {
  response.once('finish', () => request.socket.destroy());
  response.setHeader('connection', 'close');
  reply(response, 413, { error: `the body exceeds ${maxBytes} bytes` });
}

function reply(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
