// The rendered configuration served by a real nginx in front of echo
// backends: path and host matching as the Ingress spec wants, the request
// passed unchanged, redirects, HSTS, 404/503 and the status server.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { Configuration } from '../../../../src/model/types.js';
import type { RenderContext } from '../../../../src/dataplane/nginx/render/renderContext.js';
import { spawnGuarded, type GuardedProcess } from '../../../support/childProcess.js';
import { startEchoServer, type EchoResponse, type RunningEchoServer } from '../../../../tools/echo/echoServer.js';
import { eventually } from '../../../support/eventually.js';
import { freeLoopbackPorts } from '../../../support/freePort.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { createNginxPrefix, missingNginx, NGINX_BINARY, type NginxPrefix } from './nginxPrefix.js';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function get(port: number, host: string, path: string, tls = false): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, headers: { host }, agent: false } as const;
    const handle = (response: import('node:http').IncomingMessage): void => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }));
    };
    const req = tls
      ? httpsRequest({ ...options, servername: host.replace(/:\d+$/, ''), rejectUnauthorized: false }, handle)
      : httpRequest(options, handle);
    req.on('error', reject);
    req.end();
  });
}

function echo(reply: Reply): EchoResponse {
  assert.equal(reply.status, 200, reply.body);
  return JSON.parse(reply.body) as EchoResponse;
}

describe('rendered nginx.conf served by nginx', { skip: missingNginx }, () => {
  let web: RunningEchoServer;
  let api: RunningEchoServer;
  let context: RenderContext;
  let prefix: NginxPrefix;
  let nginx: GuardedProcess;

  before(async () => {
    web = await startEchoServer({ service: 'web', instance: 'web-1', host: '127.0.0.1', port: 0 });
    api = await startEchoServer({ service: 'api', instance: 'api-1', host: '127.0.0.1', port: 0 });
    const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
    context = testContext({ ports: { http, https, defaultServer, status } });
    const config = liveConfiguration(web.port, api.port);
    prefix = await createNginxPrefix(renderNginxConf(config, context), config, context);
    nginx = await spawnGuarded('nginx', NGINX_BINARY, prefix.args, `${prefix.dir}/nginx.out`);
    await eventually(async () => assert.equal((await get(status, 'localhost', '/healthz')).status, 200), { timeoutMs: 10_000 });
  });

  after(async () => {
    await nginx?.stop(5_000);
    await web?.close();
    await api?.close();
    await prefix?.remove();
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

  test('TLS host: HTTP redirects to the HTTPS port, HTTPS answers with HSTS', async () => {
    const redirect = await get(context.ports.http, `secure.example.com:${context.ports.http}`, '/p?q=1');
    assert.equal(redirect.status, 308);
    assert.equal(redirect.headers.location, `https://secure.example.com:${context.ports.https}/p?q=1`);
    assert.equal(redirect.headers['strict-transport-security'], undefined);
    const secure = await get(context.ports.https, 'secure.example.com', '/p', true);
    assert.equal(echo(secure).service, 'web');
    assert.equal(secure.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
    assert.equal(echo(secure).headers['x-forwarded-proto'], 'https');
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
});

function liveConfiguration(webPort: number, apiPort: number): Configuration {
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
      server('re.example.com', [location('/something(/|$)(.*)', 'regex', web.name, { annotations: { rewrite: { target: '/$2' } } })]),
      server('secure.example.com', [location('/', 'prefix', web.name)], { tls: true }),
    ],
    backends: [api, backend('default-drained-80', []), web],
  });
}
