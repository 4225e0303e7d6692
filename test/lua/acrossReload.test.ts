// While nginx loads a new nginx.conf, the old one keeps serving. A request it
// routes to a backend that the new configuration drops must still be served,
// and a configuration that arrives meanwhile must go live without waiting for
// the reload. Portico's rendered nginx.conf with a real nginx, whose master is
// held (SIGSTOP) so that the reload waits while requests are sent.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Agent, request } from 'undici';
import { NginxDataPlane } from '../../src/dataplane/nginxDataPlane.js';
import { silentLogger } from '../../src/log/logger.js';
import { startEchoServer, type RunningEchoServer } from '../../tools/echo/echoServer.js';
import type { Backend, Configuration } from '../../src/model/types.js';
import { backend, configuration, location, server } from '../dataplane/nginx/render/fixtures.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { whileStopped } from '../support/nginxWorkers.js';
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

/** The backend names nginx holds, from its configuration server's socket. */
async function backendNames(configurationSocket: string): Promise<string[]> {
  const answer = await request('http://localhost/configuration/backends', { dispatcher: new Agent({ connect: { socketPath: configurationSocket } }) });
  const document = (await answer.body.json()) as { backends: { name: string }[] };
  return document.backends.map(({ name }) => name).sort();
}

interface Fixture {
  dataPlane: NginxDataPlane;
  configurationSocket: string;
  old: Backend;
  replacement: Backend;
  /** The instance that answers `host`, or the status code when it is not a 200. */
  instance: (host: string) => Promise<string | number>;
}

/** A data plane on free ports, with a backend per echo server; stopped after `body`. */
async function withDataPlane(body: (fixture: Fixture) => Promise<void>): Promise<void> {
  const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
  const dataPlane = new NginxDataPlane({
    prefix: join(dir, `nginx-${http}`), logger: silentLogger(), ports: { http, https, defaultServer, status }, listenAddresses: ['127.0.0.1'],
    endpointGuard: { porticoPorts: [http, https, defaultServer, status], interfaceAddresses: [], refuseLoopbackEverywhere: false },
  });
  const [oldEcho, newEcho] = echoes;
  const instance = async (host: string) => {
    const answer = await httpGet({ port: http, host, path: '/' });
    return answer.status === 200 ? echoed(answer).instance : answer.status;
  };
  try {
    await body({
      dataPlane,
      configurationSocket: dataPlane.nginx.layout.configurationSocket,
      old: backend('default-old-80', [{ address: '127.0.0.1', port: oldEcho!.port }], { name: 'old' }),
      replacement: backend('default-new-80', [{ address: '127.0.0.1', port: newEcho!.port }], { name: 'new' }),
      instance,
    });
  } finally {
    await dataPlane.stop();
  }
}

/** Runs `body` while the data plane's nginx master is held, so that a reload waits (whileStopped). */
function whileMasterHeld<T>(dataPlane: NginxDataPlane, body: () => Promise<T>): Promise<T> {
  const master = dataPlane.nginx.masterPid;
  assert.ok(master !== undefined);
  return whileStopped(master, body);
}

const applied = (dataPlane: NginxDataPlane, next: Configuration) => dataPlane.apply(next).then(({ done }) => done);

test('a backend the next nginx.conf drops stays live until the reload is done', options, () =>
  withDataPlane(async ({ dataPlane, configurationSocket, old, replacement, instance }) => {
    // The Ingress's path moves to another Service: the location names another backend, so nginx.conf changes.
    const running = configuration({ servers: [server('_', []), server('a.example.com', [location('/', 'prefix', old.name)])], backends: [old] });
    const next = configuration({ servers: [server('_', []), server('a.example.com', [location('/', 'prefix', replacement.name)])], backends: [replacement] });
    await dataPlane.apply(running);
    assert.equal(await instance('a.example.com'), 'old-1');

    const reloaded = await whileMasterHeld(dataPlane, async () => {
      const reloading = applied(dataPlane, next);
      await eventually(async () => assert.ok((await backendNames(configurationSocket)).includes('default-new-80'), 'the next live state is pushed'));
      for (let attempt = 0; attempt < 20; attempt++) assert.equal(await instance('a.example.com'), 'old-1', 'the old nginx.conf serves, with its backend');
      assert.deepEqual(await backendNames(configurationSocket), ['default-new-80', 'default-old-80']);
      assert.equal(dataPlane.nginx.reloads, 0, 'the reload is still waiting');
      return { reloading };
    });
    assert.equal((await reloaded.reloading).outcome, 'reloaded');
    assert.equal(await instance('a.example.com'), 'new-1');
    assert.deepEqual(await backendNames(configurationSocket), ['default-new-80'], 'the dropped backend is gone once nothing routes to it');
  }));

test('a configuration applied during a reload goes live at once; of those waiting for their reload only the newest is loaded', options, () =>
  withDataPlane(async ({ dataPlane, old, replacement, instance }) => {
    const host = (name: string, backendName: string) => server(name, [location('/', 'prefix', backendName)]);
    const running = configuration({ servers: [server('_', []), host('a.example.com', old.name)], backends: [old] });
    const first = configuration({ servers: [server('_', []), host('a.example.com', replacement.name)], backends: [replacement] });
    const second = configuration({ servers: [...first.servers, host('b.example.com', replacement.name)], backends: [replacement] });
    const third = configuration({ servers: [...second.servers, host('c.example.com', replacement.name)], backends: [replacement] });
    await dataPlane.apply(running);

    const { firstDone, thirdDone } = await whileMasterHeld(dataPlane, async () => {
      const firstDone = applied(dataPlane, first);
      // apply() resolves once the live state is pushed, while the first reload still waits for the master.
      const secondDone = (await dataPlane.apply(second)).done;
      assert.equal(await instance('b.example.com'), 'new-1', 'a new host, routed from live state during the reload');
      assert.equal(await instance('a.example.com'), 'old-1', 'the old nginx.conf still serves');
      const thirdDone = (await dataPlane.apply(third)).done;
      assert.equal((await secondDone).outcome, 'superseded', 'the third took its place before its turn');
      assert.equal(await instance('c.example.com'), 'new-1');
      assert.equal(dataPlane.nginx.reloads, 0);
      return { firstDone, thirdDone };
    });
    assert.equal((await firstDone).outcome, 'reloaded');
    assert.equal((await thirdDone).outcome, 'reloaded');
    assert.equal(dataPlane.nginx.reloads, 2, 'the first, then the newest');
    for (const name of ['a.example.com', 'b.example.com', 'c.example.com']) assert.equal(await instance(name), 'new-1', name);
  }));
