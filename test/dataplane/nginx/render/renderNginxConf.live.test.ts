// The rendered configuration served by a real nginx in front of echo
// backends, once the live state (endpoints, certificates) is pushed to its
// Lua modules as the controller does: path and host matching as the Ingress
// spec wants, the request passed unchanged, redirects, HSTS, certificates by
// SNI, 404/503, the status server, and an endpoint change without a reload.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { liveStateOf } from '../../../../src/dataplane/live/liveState.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration } from '../../../../src/model/types.js';
import type { RenderContext } from '../../../../src/dataplane/nginx/render/renderContext.js';
import { spawnGuarded, type GuardedProcess } from '../../../support/childProcess.js';
import { startEchoServer, type EchoResponse, type RunningEchoServer } from '../../../../tools/echo/echoServer.js';
import { eventually } from '../../../support/eventually.js';
import { freeLoopbackPorts } from '../../../support/freePort.js';
import { backend, certificate, configuration, location, server, testContext } from './fixtures.js';
import {
  createNginxPrefix,
  FAKE_CERTIFICATE_NAME,
  missingNginx,
  NGINX_BINARY,
  selfSignedCertificate,
  type NginxPrefix,
} from './nginxPrefix.js';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Over TLS: the CN of the certificate nginx presented. */
  certificateName?: string;
}

function get(port: number, host: string, path: string, tls = false): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, headers: { host }, agent: false } as const;
    const handle = (response: IncomingMessage): void => {
      const certificateName = tls ? String((response.socket as TLSSocket).getPeerCertificate().subject.CN) : undefined;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString(),
          certificateName,
        }),
      );
    };
    const req = tls
      ? httpsRequest({ ...options, servername: host.replace(/:\d+$/, ''), rejectUnauthorized: false }, handle)
      : httpRequest(options, handle);
    req.on('error', reject);
    req.end();
  });
}

/** Sends a request to the configuration server's unix socket, as LiveStateClient does. */
function configurationRequest(socketPath: string, method: string, path: string, body = ''): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        socketPath,
        path,
        method,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function pushLiveState(socketPath: string, config: Configuration): Promise<void> {
  const state = liveStateOf(config, new Set(config.servers.map((server) => server.hostname)));
  const backends = await configurationRequest(socketPath, 'POST', '/configuration/backends', state.backends);
  assert.equal(backends.status, 201, backends.body);
  const certificates = await configurationRequest(socketPath, 'POST', '/configuration/certificates', state.certificates);
  assert.equal(certificates.status, 201, certificates.body);
}

function echo(reply: Reply): EchoResponse {
  assert.equal(reply.status, 200, reply.body);
  return JSON.parse(reply.body) as EchoResponse;
}

describe('rendered nginx.conf served by nginx', { skip: missingNginx }, () => {
  let web: RunningEchoServer;
  let api: RunningEchoServer;
  let context: RenderContext;
  let config: Configuration;
  let prefix: NginxPrefix;
  let nginx: GuardedProcess;
  // nginx resolves a unix socket's path against its working directory, not its prefix: give it an absolute one.
  let socketDir: string;

  before(async () => {
    socketDir = await mkdtemp(join(tmpdir(), 'portico-render-sockets-'));
    await chmod(socketDir, 0o755); // workers (nobody) connect to the no-endpoints server
    web = await startEchoServer({ service: 'web', instance: 'web-1', host: '127.0.0.1', port: 0 });
    api = await startEchoServer({ service: 'api', instance: 'api-1', host: '127.0.0.1', port: 0 });
    const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
    context = testContext({
      ports: { http, https, defaultServer, status },
      paths: { noEndpointsSocket: join(socketDir, 'no-endpoints.sock'), configurationSocket: join(socketDir, 'configuration.sock') },
    });
    config = liveConfiguration(web.port, api.port, await selfSignedCertificate('secure.example.com'));
    prefix = await createNginxPrefix(renderNginxConf(config, context), context);
    nginx = await spawnGuarded('nginx', NGINX_BINARY, prefix.args, `${prefix.dir}/nginx.out`);
    await eventually(async () => assert.equal((await get(status, 'localhost', '/healthz')).status, 200), { timeoutMs: 10_000 });
    const socket = context.paths.configurationSocket;
    assert.equal((await configurationRequest(socket, 'GET', '/is-dynamic-lb-initialized')).status, 404, 'nothing pushed yet');
    await pushLiveState(socket, config);
    assert.equal((await configurationRequest(socket, 'GET', '/is-dynamic-lb-initialized')).status, 200);
    assert.equal((await get(status, 'localhost', '/is-dynamic-lb-initialized')).status, 404, 'not on the status port');
  });

  after(async () => {
    await nginx?.stop(5_000);
    await web?.close();
    await api?.close();
    await prefix?.remove();
    if (socketDir !== undefined) await rm(socketDir, { recursive: true, force: true });
  });

  test('prefix and exact paths as the Ingress spec says', async () => {
    const serviceOf = async (path: string): Promise<string> => echo(await get(context.ports.http, 'app.example.com', path)).service;
    for (const path of ['/aaa/bbb', '/aaa/bbb/', '/aaa/bbb/ccc', '/foo']) assert.equal(await serviceOf(path), 'api', path);
    for (const path of ['/aaa/bbbxyz', '/aaa/bb', '/foo/', '/FOO', '/']) assert.equal(await serviceOf(path), 'web', path);
  });

  test('passes the request target and Host unchanged, with forwarding headers', async () => {
    const host = `app.example.com:${context.ports.http}`;
    const seen = echo(await get(context.ports.http, host, '/x/%2e%2e/y//z?a=b&c'));
    assert.equal(seen.path, '/x/%2e%2e/y//z');
    assert.equal(seen.query, 'a=b&c');
    assert.equal(seen.host, host);
    assert.equal(seen.headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(seen.headers['x-forwarded-proto'], 'http');
    assert.equal(seen.headers['x-forwarded-host'], host);
    assert.match(String(seen.headers['x-request-id']), /^[0-9a-f]{32}$/);
  });

  test('a wildcard host matches exactly one label', async () => {
    assert.equal(echo(await get(context.ports.http, 'one.wild.example.com', '/')).service, 'api');
    assert.equal((await get(context.ports.http, 'two.one.wild.example.com', '/')).status, 404);
    assert.equal((await get(context.ports.http, 'wild.example.com', '/')).status, 404);
  });

  test('TLS host: HTTP redirects to HTTPS (no port, as ingress-nginx), HTTPS answers with HSTS', async () => {
    const redirect = await get(context.ports.http, `secure.example.com:${context.ports.http}`, '/p?q=1');
    assert.equal(redirect.status, 308);
    assert.equal(redirect.headers.location, 'https://secure.example.com/p?q=1');
    assert.equal(redirect.headers['strict-transport-security'], undefined);
    const secure = await get(context.ports.https, 'secure.example.com', '/p', true);
    assert.equal(echo(secure).service, 'web');
    assert.equal(secure.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
    assert.equal(echo(secure).headers['x-forwarded-proto'], 'https');
  });

  test('hosts written alike share one server block, and each is served as its own', async () => {
    assert.match(renderNginxConf(config, context), /server_name "twin-a\.example\.com" "twin-b\.example\.com";/);
    for (const host of ['twin-a.example.com', 'twin-b.example.com']) {
      const reply = echo(await get(context.ports.http, host, '/x'));
      assert.equal(reply.service, 'api');
      assert.equal(reply.headers.host, host);
    }
    assert.equal((await get(context.ports.http, 'twin-c.example.com', '/x')).status, 404);
  });

  test('HTTPS: the pushed certificate by SNI, else the static fallback', async () => {
    assert.equal((await get(context.ports.https, 'secure.example.com', '/p', true)).certificateName, 'secure.example.com');
    assert.equal((await get(context.ports.https, 'app.example.com', '/foo', true)).certificateName, FAKE_CERTIFICATE_NAME);
  });

  test('regex mode rewrites with captures', async () => {
    assert.equal(echo(await get(context.ports.http, 're.example.com', '/Something/else?x=1')).path, '/else');
  });

  test('404 and 503 answers, the default server port and the status server', async () => {
    assert.equal((await get(context.ports.http, 'app.example.com', '/drained/x')).status, 503);
    assert.equal((await get(context.ports.http, 'unknown.example.com', '/')).status, 404);
    assert.equal((await get(context.ports.defaultServer, 'app.example.com', '/foo')).status, 404);
    assert.match((await get(context.ports.status, 'localhost', '/nginx_status')).body, /Active connections/);
  });

  test('new endpoints apply without a reload: a drained backend gets one', async () => {
    const refilled: Configuration = {
      ...config,
      backends: config.backends.map((entry) =>
        entry.name === 'default-drained-80' ? { ...entry, endpoints: [{ address: '127.0.0.1', port: api.port }] } : entry,
      ),
    };
    await pushLiveState(context.paths.configurationSocket, refilled);
    assert.equal(echo(await get(context.ports.http, 'app.example.com', '/drained/x')).service, 'api');
    assert.equal(renderNginxConf(refilled, context), renderNginxConf(config, context), 'the same nginx.conf');
  });
});

function liveConfiguration(webPort: number, apiPort: number, secureCertificate: { certificatePem: string; keyPem: string }): Configuration {
  const web = backend('default-web-80', [{ address: '127.0.0.1', port: webPort }]);
  const api = backend('default-api-80', [{ address: '127.0.0.1', port: apiPort }], { name: 'api' });
  return configuration({
    servers: [
      server('_', []),
      server('*.wild.example.com', [location('/', 'prefix', api.name)]),
      server('app.example.com', [
        location('/aaa/bbb', 'prefix', api.name),
        location('/foo', 'exact', api.name),
        location('/drained', 'prefix', 'default-drained-80'),
        location('/', 'prefix', web.name),
      ]),
      // Written alike: one server block for both (sharedServerBlocks.ts).
      server('twin-a.example.com', [location('/', 'prefix', api.name)]),
      server('twin-b.example.com', [location('/', 'prefix', api.name)]),
      server('re.example.com', [location('/something(/|$)(.*)', 'regex', web.name, { annotations: { rewrite: { target: '/$2' } } })]),
      server('secure.example.com', [location('/', 'prefix', web.name)], { tls: true, certificate: 'secure-1' }),
    ],
    backends: [api, backend('default-drained-80', []), web],
    certificates: [{ ...certificate('secure-1', ['secure.example.com']), ...secureCertificate }],
  });
}
