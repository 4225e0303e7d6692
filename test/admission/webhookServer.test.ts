// The webhook's HTTPS server, for real: TLS on loopback, hostile clients.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { Server } from 'node:https';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { reviewIngress } from '../../src/admission/reviewIngress.js';
import { MAX_REVIEW_BYTES, startWebhookServer } from '../../src/admission/webhookServer.js';
import { silentLogger } from '../../src/log/logger.js';
import { createTestCertificates } from '../support/testCertificates.js';
import { contextWith, ingress } from './admissionTestSupport.js';

const REQUEST_TIMEOUT_MS = 1_500;
const UID = '0b8d4f4e-3c1a-4d35-9d8e-2f6a1c0e9b7a';

interface Reply {
  status: number;
  body: string;
}

describe('the admission webhook server', () => {
  let dir: string;
  let ca: Buffer;
  let server: Server;
  let port: number;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-webhook-'));
    const certificates = await createTestCertificates(dir);
    ca = await readFile(certificates.caCert);
    const context = contextWith([ingress('owner', [['a.example', '/', 'Prefix']])]);
    server = await startWebhookServer({
      address: { host: '127.0.0.1', port: 0 },
      certificate: await readFile(certificates.servingCert),
      key: await readFile(certificates.servingKey),
      review: (candidate) => reviewIngress(candidate, context),
      logger: silentLogger(),
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');
    port = address.port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  function post(body: string | Buffer, headers: Record<string, string> = {}, method = 'POST'): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method,
          path: '/networking/v1/ingresses',
          ca,
          agent: false,
          timeout: 10_000,
          headers: { 'content-type': 'application/json', ...headers },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('client timeout')));
      req.on('error', reject);
      req.end(body);
    });
  }

  const review = (name: string, annotations: Record<string, string> = {}) =>
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: UID,
        kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
        operation: 'CREATE',
        namespace: 'app',
        dryRun: false,
        object: ingress(name, [['a.example', `/${name}`, 'Prefix']], annotations),
      },
    });

  it('answers a review with the uid and the verdict', async () => {
    const allowed = await post(review('good'));
    assert.equal(allowed.status, 200);
    assert.deepEqual(JSON.parse(allowed.body), {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: UID, allowed: true },
    });
    const denied = JSON.parse((await post(review('bad', { 'ssl-redirect': 'maybe' }))).body) as {
      response: { uid: string; allowed: boolean; status: { code: number; message: string } };
    };
    assert.equal(denied.response.uid, UID);
    assert.equal(denied.response.allowed, false);
    assert.equal(denied.response.status.code, 400);
    assert.match(denied.response.status.message, /annotation nginx\.ingress\.kubernetes\.io\/ssl-redirect: invalid value "maybe"/);
  });

  it('refuses what is not a JSON AdmissionReview with 4xx, and keeps serving', async () => {
    assert.equal((await post('{"apiVersion": "admission.k8s.io/v1", ')).status, 400);
    assert.equal((await post('\u0000\u0001binary')).status, 400);
    const wrongKind = await post(JSON.stringify({ apiVersion: 'v1', kind: 'Pod' }));
    assert.equal(wrongKind.status, 400);
    assert.match(wrongKind.body, /not an admission\.k8s\.io\/v1 AdmissionReview/);
    assert.equal((await post(review('good'), { 'content-type': 'text/plain' })).status, 415);
    assert.equal((await post('', {}, 'GET')).status, 405);
    assert.equal((await post(review('good'))).status, 200);
  });

  it('refuses a body over 9 MB by its Content-Length, before reading it', async () => {
    const reply = await new Promise<Reply>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          ca,
          agent: false,
          headers: { 'content-type': 'application/json', 'content-length': String(MAX_REVIEW_BYTES + 1) },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: '' }));
        },
      );
      req.on('error', reject);
      // Headers only: the server answers without waiting for 9 MB that never come.
      req.flushHeaders();
    });
    assert.equal(reply.status, 413);
  });

  it('counts a streamed body as it arrives and cuts it off past 9 MB', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const outcome = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          ca,
          agent: false,
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (response) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0, sent });
          req.destroy();
        },
      );
      req.on('error', (error) => (sent > MAX_REVIEW_BYTES ? resolve({ status: 0, sent }) : reject(error)));
      const pump = () => {
        // Bounded: 64 MB at most, far past the cap.
        while (sent < 64 * chunk.length) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    });
    assert.ok(outcome.status === 413 || outcome.status === 0, `status ${outcome.status}`);
    assert.ok(outcome.sent < 32 * chunk.length, `the server read on to ${outcome.sent} bytes`);
  });

  it('drops a client that sends its request too slowly', async () => {
    const started = Date.now();
    const closed = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, ca, servername: '' }, () => {
        socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"apiV');
      });
      let received = '';
      socket.on('data', (data: Buffer) => (received += data.toString()));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
      setTimeout(() => {
        socket.destroy();
        reject(new Error('the server kept a stalled request open for 10 s'));
      }, 10_000).unref();
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= REQUEST_TIMEOUT_MS - 100, `closed after ${elapsed} ms`);
    assert.match(closed, /^HTTP\/1\.1 408/);
  });
});
