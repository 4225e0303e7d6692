/**
 * A backend that records every request it receives (for mirror-target: the
 * copies nginx sends, whose answers nobody reads), run as its own process in
 * a test network. Each request gets `204`; `GET /_recorded` (not recorded)
 * answers the list so far: method, target, Host, the Content-Length header
 * and the body.
 *
 * As a script: node --import tsx test/support/requestRecorder.ts --listen 198.18.1.5:0
 * prints `listening <address>:<port>` once it accepts connections.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { httpGet } from './httpGet.js';
import { startNetnsService } from './netnsService.js';
import type { TestNetwork } from './testNetwork.js';

export interface RecordedRequest {
  method: string;
  url: string;
  host: string | undefined;
  contentLength: string | undefined;
  body: string;
}

export interface RequestRecorder {
  address: string;
  port: number;
  recorded(): Promise<RecordedRequest[]>;
  stop(): Promise<void>;
}

/** Starts a recorder on a new address of `network`. */
export async function startRequestRecorder(network: TestNetwork): Promise<RequestRecorder> {
  const service = await startNetnsService(network, 'request recorder', fileURLToPath(import.meta.url));
  return {
    ...service,
    async recorded() {
      const result = await httpGet({ address: service.address, port: service.port, path: '/_recorded' });
      return JSON.parse(result.body) as RecordedRequest[];
    },
  };
}

function serve(listen: string): void {
  const separator = listen.lastIndexOf(':');
  const recorded: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/_recorded') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(recorded));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { method = '', url = '', headers } = request;
      recorded.push({
        method,
        url,
        host: headers.host,
        contentLength: headers['content-length'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(204).end();
    });
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
