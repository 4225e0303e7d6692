// lua/portico/keepalive_drain.lua with Portico's rendered nginx.conf and a
// real nginx: while the controller's drain is on, HTTP/1.1 responses say
// `Connection: close` and the client closes its kept-alive connection itself;
// off (ended, or run out), connections are kept alive again. The endpoint
// refuses what is not a bounded number of seconds.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { Agent, request } from 'undici';
import { NginxDataPlane } from '../../src/dataplane/nginxDataPlane.js';
import { silentLogger } from '../../src/log/logger.js';
import { startEchoServer, type RunningEchoServer } from '../../tools/echo/echoServer.js';
import { backend, configuration, location, server } from '../dataplane/nginx/render/fixtures.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { missingLuaNginx } from './luaNginx.js';

const options = { skip: missingLuaNginx, timeout: 60_000 };
const HOST = 'drain.example.com';

let echo: RunningEchoServer;
let dir: string;
let dataPlane: NginxDataPlane;
let httpPort: number;
let socket: Agent;

before(async () => {
  if (missingLuaNginx !== undefined) return;
  echo = await startEchoServer({ service: 'web', instance: 'web-1', host: '127.0.0.1', port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'portico-drain-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
  const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
  httpPort = http;
  dataPlane = new NginxDataPlane({
    prefix: join(dir, 'nginx'),
    logger: silentLogger(),
    ports: { http, https, defaultServer, status },
    listenAddresses: ['127.0.0.1'],
    endpointGuard: { porticoPorts: [http, https, defaultServer, status], interfaceAddresses: [], refuseLoopbackEverywhere: false },
  });
  const web = backend('default-web-80', [{ address: '127.0.0.1', port: echo.port }]);
  await dataPlane.apply(configuration({ servers: [server('_', []), server(HOST, [location('/', 'prefix', web.name)])], backends: [web] }));
  socket = new Agent({ connect: { socketPath: dataPlane.nginx.layout.configurationSocket } });
});

after(async () => {
  await dataPlane?.stop();
  await socket?.close();
  await echo?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function drain(method: string, query = ''): Promise<{ status: number; text: string }> {
  const response = await request(`http://localhost/configuration/keepalive-drain${query}`, { method, dispatcher: socket });
  return { status: response.statusCode, text: await response.body.text() };
}

interface Answer {
  readonly status: number;
  readonly connection: string;
  /** Whether the client's connection was closed once the response was read. */
  readonly clientClosed: boolean;
}

/** A POST with a body on a kept-alive connection of its own (an Agent of one socket). */
function post(): Promise<Answer> {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: httpPort, method: 'POST', path: '/', headers: { host: HOST, 'content-length': 4 }, agent, timeout: 10_000 },
      (response) => {
        response.resume();
        response.on('end', () => {
          // The agent keeps a socket it may reuse; it destroys one the response asked it to close, at once.
          setImmediate(() =>
            resolve({
              status: response.statusCode ?? 0,
              connection: String(response.headers.connection ?? ''),
              clientClosed: req.socket?.destroyed === true,
            }),
          );
        });
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end('body');
  }).finally(() => agent.destroy());
}

/** curl POSTing twice in one run, as it would on one kept-alive connection: how many connections it opened. */
async function curlConnections(): Promise<number> {
  const url = `http://127.0.0.1:${httpPort}/`;
  const { stderr } = await promisify(execFile)('curl', ['-sv', '--max-time', '10', '-H', `Host: ${HOST}`, '-d', 'body', '-o', '/dev/null', url, '-o', '/dev/null', url]);
  return (stderr.match(/^\* Connected to /gm) ?? []).length;
}

test('without a drain, connections are kept alive', options, async () => {
  const answer = await post();
  assert.deepEqual(answer, { status: 200, connection: 'keep-alive', clientClosed: false });
  assert.equal(await curlConnections(), 1, 'curl reuses its connection');
});

test('while the drain is on, curl closes too (the response has both keep-alive and close)', options, async () => {
  assert.equal((await drain('PUT', '?seconds=60')).status, 200);
  try {
    assert.equal(await curlConnections(), 2, 'curl opened a second connection');
  } finally {
    assert.equal((await drain('DELETE')).status, 200);
  }
});


test('while the drain is on, the client closes its connection after each response; DELETE ends it', options, async () => {
  assert.deepEqual(await drain('PUT', '?seconds=60'), { status: 200, text: 'draining\n' });
  try {
    const answer = await post();
    assert.equal(answer.status, 200);
    assert.match(answer.connection, /\bclose\b/);
    assert.equal(answer.clientClosed, true, 'the client closed the connection itself');
  } finally {
    assert.equal((await drain('DELETE')).status, 200);
  }
  assert.deepEqual(await post(), { status: 200, connection: 'keep-alive', clientClosed: false });
});

test('a drain ends by itself after its seconds (a controller that died mid-reload)', options, async () => {
  assert.equal((await drain('PUT', '?seconds=1')).status, 200);
  assert.match((await post()).connection, /\bclose\b/);
  await eventually(async () => assert.equal((await post()).connection, 'keep-alive'), { timeoutMs: 5_000, intervalMs: 100 });
});

test('the endpoint refuses what is not a number of seconds in (0, 3600], and other methods', options, async () => {
  for (const query of ['', '?seconds=', '?seconds=abc', '?seconds=0', '?seconds=-1', '?seconds=3601', '?seconds=nan', '?seconds=inf', '?seconds=1e400']) {
    const answer = await drain('PUT', query);
    assert.equal(answer.status, 400, `${query}: ${answer.text}`);
  }
  for (const method of ['GET', 'POST']) assert.equal((await drain(method, '?seconds=5')).status, 405, method);
  assert.equal((await post()).connection, 'keep-alive', 'no refused call started a drain');
});
