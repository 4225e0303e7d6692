// One HTTP(S) request to a loopback (or test network) port with an explicit Host (and SNI), as
// a client of an ingress controller sends it. Bounded by a timeout.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { PeerCertificate, TLSSocket } from 'node:tls';

export interface HttpGetOptions {
  port: number;
  /** Default 127.0.0.1; e.g. a test network's address. */
  address?: string;
  /** Host header, and the TLS server name for HTTPS (omitted: 127.0.0.1 and no SNI). */
  host?: string;
  path?: string;
  method?: string;
  https?: boolean;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  /** HTTPS: a client certificate to present (mTLS). */
  clientCertificate?: { certificatePem: string; keyPem: string };
  /** HTTPS: a TLS server name other than `host`. */
  servername?: string;
}

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The server's certificate (HTTPS only). */
  certificate: PeerCertificate | undefined;
}

export function httpGet(options: HttpGetOptions): Promise<HttpResult> {
  const send = options.https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        host: options.address ?? '127.0.0.1',
        port: options.port,
        path: options.path ?? '/',
        method: options.method ?? 'GET',
        headers: { ...(options.host ? { host: options.host } : {}), ...options.headers },
        agent: false,
        timeout: options.timeoutMs ?? 5000,
        ...(options.https
          ? {
              servername: options.servername ?? (options.host && !/^[\d.]+$/.test(options.host) ? options.host : ''),
              rejectUnauthorized: false,
              ...(options.clientCertificate
                ? { cert: options.clientCertificate.certificatePem, key: options.clientCertificate.keyPem }
                : {}),
            }
          : {}),
      },
      (response) => {
        const certificate = options.https ? (response.socket as TLSSocket).getPeerCertificate() : undefined;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            certificate,
          }),
        );
        response.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to :${options.port}${options.path ?? '/'} timed out`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The echo backend's JSON, or a readable failure when the answer was not from a backend. */
export function echoed(result: HttpResult): {
  service: string;
  instance: string;
  path: string;
  query: string;
  host: string;
  headers: Record<string, string>;
} {
  try {
    return JSON.parse(result.body) as ReturnType<typeof echoed>;
  } catch {
    throw new Error(`not an echo response (HTTP ${result.status}): ${result.body.slice(0, 200)}`);
  }
}
