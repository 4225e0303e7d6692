// While nginx loads a new nginx.conf, the old one keeps serving. A request it
// routes to a backend that the new configuration drops must still be served:
// Portico's rendered nginx.conf with a real nginx, whose master is held
// (SIGSTOP) so that the reload waits while requests are sent.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { NginxDataPlane } from '../../src/dataplane/nginxDataPlane.js';
import { silentLogger } from '../../src/log/logger.js';
import { startEchoServer, type RunningEchoServer } from '../../tools/echo/echoServer.js';
import { backend, configuration, location, server } from '../dataplane/nginx/render/fixtures.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { missingLuaNginx } from './luaNginx.js';

const options = { skip: missingLuaNginx, timeout: 60_000 };

const echoes: RunningEchoServer[] = [];
let dir: string;

before(async () => {
  for (const service of ['old', 'new']) echoes.push(await startEchoServer({ service, instance: `${service}-1`, host: '127.0.0.1', port: 0 }));
  dir = await mkdtemp(join(tmpdir(), 'portico-across-reload-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
});

after(async () => {
  for (const echo of echoes) await echo.close();
  await rm(dir, { recursive: true, force: true });
});

async function backendNames(status: number): Promise<string[]> {
  const answer = await request(`http://127.0.0.1:${status}/configuration/backends`);
  const document = (await answer.body.json()) as { backends: { name: string }[] };
  return document.backends.map(({ name }) => name).sort();
}

test('a backend the next nginx.conf drops stays live until the reload is done', options, async () => {
  const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
  const dataPlane = new NginxDataPlane({
    prefix: join(dir, 'nginx'), logger: silentLogger(), ports: { http, https, defaultServer, status }, listenAddresses: ['127.0.0.1'],
  });
  const [oldEcho, newEcho] = echoes;
  const old = backend('default-old-80', [{ address: '127.0.0.1', port: oldEcho!.port }], { name: 'old' });
  const replacement = backend('default-new-80', [{ address: '127.0.0.1', port: newEcho!.port }], { name: 'new' });
  // The Ingress's path moves to another Service: the location names another backend, so nginx.conf changes.
  const running = configuration({ servers: [server('_', []), server('a.example.com', [location('/', 'prefix', old.name)])], backends: [old] });
  const next = configuration({ servers: [server('_', []), server('a.example.com', [location('/', 'prefix', replacement.name)])], backends: [replacement] });
  const instance = async () => {
    const answer = await httpGet({ port: http, host: 'a.example.com', path: '/' });
    return answer.status === 200 ? echoed(answer).instance : answer.status;
  };
  let master: number | undefined;
  try {
    await dataPlane.apply(running);
    assert.equal(await instance(), 'old-1');

    master = dataPlane.nginx.masterPid;
    assert.ok(master !== undefined);
    process.kill(master, 'SIGSTOP');
    const applied = dataPlane.apply(next);
    await eventually(async () => assert.ok((await backendNames(status)).includes('default-new-80'), 'the next live state is pushed'));
    for (let attempt = 0; attempt < 20; attempt++) assert.equal(await instance(), 'old-1', 'the old nginx.conf serves, with its backend');
    assert.deepEqual(await backendNames(status), ['default-new-80', 'default-old-80']);
    assert.equal(dataPlane.nginx.reloads, 0, 'the reload is still waiting');

    process.kill(master, 'SIGCONT');
    assert.equal((await applied).outcome, 'reloaded');
    assert.equal(await instance(), 'new-1');
    assert.deepEqual(await backendNames(status), ['default-new-80'], 'the dropped backend is gone once nothing routes to it');
  } finally {
    if (master !== undefined) process.kill(master, 'SIGCONT');
    await dataPlane.stop();
  }
});
