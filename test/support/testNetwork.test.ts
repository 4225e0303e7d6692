import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { EchoResponse } from '../../tools/echo/echoServer.js';
import { createTestNetwork, type EchoBackend, type TestNetwork } from './testNetwork.js';
import { isRunning } from './isRunning.js';

const run = promisify(execFile);
const requestTimeoutMs = 5_000;

interface Reply {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly echo: EchoResponse | undefined;
  /** Whether the request went over a kept-alive connection. */
  readonly reusedSocket: boolean;
}

/** One request with a raw path (node:http sends it as given, unlike URL-based clients). */
function send(backend: EchoBackend, path: string, options: RequestOptions & { body?: string; tls?: boolean } = {}): Promise<Reply> {
  const { body, tls, ...requestOptions } = options;
  return new Promise((resolve, reject) => {
    const request: ClientRequest = (tls === true ? httpsRequest : httpRequest)(
      {
        host: backend.address,
        port: backend.port,
        path,
        timeout: requestTimeoutMs,
        // The certificate is a throw-away, as nginx's proxy_ssl_verify is off by default.
        ...(tls === true ? { rejectUnauthorized: false } : {}),
        ...requestOptions,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            echo: text === '' ? undefined : (JSON.parse(text) as EchoResponse),
            reusedSocket: request.reusedSocket,
          });
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer from ${backend.url}${path} within ${requestTimeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

async function namespaceNames(): Promise<string[]> {
  const { stdout } = await run('ip', ['netns', 'list'], { timeout: 10_000 });
  return stdout
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name !== '');
}

/** A self-signed P-256 certificate for `address`, made with the openssl CLI. */
async function throwAwayCertificate(dir: string, address: string): Promise<{ certFile: string; keyFile: string }> {
  const certFile = join(dir, 'echo.crt');
  const keyFile = join(dir, 'echo.key');
  await run(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=portico-test-echo',
      '-addext',
      `subjectAltName=IP:${address}`,
    ],
    { timeout: 30_000 },
  );
  return { certFile, keyFile };
}

describe('test network', { timeout: 60_000 }, () => {
  let first: TestNetwork;
  let second: TestNetwork;
  let certDir: string;
  let web1: EchoBackend;
  let web2: EchoBackend;
  let api1: EchoBackend;
  let secureApi: EchoBackend;
  const keepAliveAgent = new Agent({ keepAlive: true, maxSockets: 1 });

  before(async () => {
    certDir = await mkdtemp(join(tmpdir(), 'portico-echo-cert-'));
    [first, second] = await Promise.all([createTestNetwork(), createTestNetwork()]);
    const certificate = await throwAwayCertificate(certDir, second.address);
    [web1, web2, api1, secureApi] = await Promise.all([
      first.startEcho({ service: 'web', instance: 'web-1', port: 8080 }),
      first.addAddress().then((address) => first.startEcho({ service: 'web', instance: 'web-2', port: 8080, address })),
      second.startEcho({ service: 'api', instance: 'api-1' }),
      second.startEcho({ service: 'secure-api', instance: 'secure-api-1', tls: certificate }),
    ]);
  });

  after(async () => {
    keepAliveAgent.destroy();
    await Promise.all([first?.destroy(), second?.destroy()]);
    if (certDir !== undefined) await rm(certDir, { recursive: true, force: true });
  });

  it('gives each network its own namespace and subnet', () => {
    assert.notEqual(first.name, second.name);
    assert.match(first.hostAddress, /^198\.18\.\d+\.1$/);
    assert.match(first.address, /^198\.18\.\d+\.2$/);
    const subnetOf = (address: string): string => address.split('.').slice(0, 3).join('.');
    assert.equal(subnetOf(first.address), subnetOf(first.hostAddress));
    assert.notEqual(subnetOf(first.hostAddress), subnetOf(second.hostAddress));
    assert.notEqual(web2.address, web1.address);
    assert.equal(subnetOf(web2.address), subnetOf(first.address));
  });

  it('reaches every backend from the host, and each names its instance', async () => {
    for (const [backend, service, instance] of [
      [web1, 'web', 'web-1'],
      [web2, 'web', 'web-2'],
      [api1, 'api', 'api-1'],
    ] as const) {
      const reply = await send(backend, '/hello');
      assert.equal(reply.status, 200, backend.url);
      assert.equal(reply.echo?.service, service);
      assert.equal(reply.echo?.instance, instance);
      assert.equal(reply.echo?.host, `${backend.address}:${backend.port}`);
      assert.equal(reply.echo?.tls, false);
    }
    assert.equal(web1.port, 8080);
  });

  it('echoes the raw path and query unchanged', async () => {
    const reply = await send(web1, '//double//slash/a%2Fb/../c?x=1&y=%2F&x=2');
    assert.equal(reply.echo?.method, 'GET');
    assert.equal(reply.echo?.path, '//double//slash/a%2Fb/../c');
    assert.equal(reply.echo?.query, 'x=1&y=%2F&x=2');
  });

  it('echoes headers and a request body', async () => {
    const reply = await send(api1, '/submit', {
      method: 'POST',
      headers: { 'x-test': 'yes', 'content-type': 'text/plain' },
      body: 'payload',
    });
    assert.equal(reply.echo?.method, 'POST');
    assert.equal(reply.echo?.headers['x-test'], 'yes');
    assert.equal(reply.echo?.body, 'payload');
    const withoutBody = await send(api1, '/');
    assert.equal(withoutBody.echo !== undefined && 'body' in withoutBody.echo, false);
  });

  it('answers /status/<code> with that code', async () => {
    const unavailable = await send(web1, '/status/503');
    assert.equal(unavailable.status, 503);
    assert.equal(unavailable.echo?.instance, 'web-1');
    const noContent = await send(web1, '/status/204');
    assert.equal(noContent.status, 204);
    assert.equal(noContent.echo, undefined);
  });

  it('keeps connections alive', async () => {
    const firstReply = await send(web2, '/one', { agent: keepAliveAgent });
    const secondReply = await send(web2, '/two', { agent: keepAliveAgent });
    assert.equal(firstReply.headers.connection, 'keep-alive');
    assert.equal(secondReply.reusedSocket, true);
  });

  it('serves HTTPS when given a certificate', async () => {
    assert.match(secureApi.url, /^https:/);
    const reply = await send(secureApi, '/secure', { tls: true });
    assert.equal(reply.status, 200);
    assert.equal(reply.echo?.instance, 'secure-api-1');
    assert.equal(reply.echo?.tls, true);
  });

  it('leaves no namespace, link or process behind after destroy()', async () => {
    const pids = [web1, web2, api1, secureApi].map((backend) => backend.pid);
    assert.ok(pids.every(isRunning));
    await Promise.all([first.destroy(), second.destroy()]);
    const names = await namespaceNames();
    assert.ok(!names.includes(first.name) && !names.includes(second.name), names.join(', '));
    assert.deepEqual(pids.filter(isRunning), []);
    const { stdout: hostAddresses } = await run('ip', ['-o', '-4', 'addr', 'show'], { timeout: 10_000 });
    assert.ok(!hostAddresses.includes(` ${first.hostAddress}/`) && !hostAddresses.includes(` ${second.hostAddress}/`), hostAddresses);
  });
});
