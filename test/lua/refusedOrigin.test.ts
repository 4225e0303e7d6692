// A configuration nginx refuses names its culprit: the data plane traces the
// line nginx's error names back to the object that wrote it, whether nginx -t
// refused the first configuration (nothing started) or the master refused a
// reload (the previous configuration keeps serving). A configuration-snippet
// (admitted by the ConfigMap) is the value Portico passes and nginx refuses.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ApplyOutcome } from '../../src/dataplane/dataPlane.js';
import { NginxDataPlane } from '../../src/dataplane/nginxDataPlane.js';
import { silentLogger } from '../../src/log/logger.js';
import type { Configuration, IngressRef, Location } from '../../src/model/types.js';
import { startEchoServer, type RunningEchoServer } from '../../tools/echo/echoServer.js';
import { annotations, backend, configuration, ingressRef, server } from '../dataplane/nginx/render/fixtures.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { missingLuaNginx } from './luaNginx.js';

const options = { skip: missingLuaNginx, timeout: 60_000 };

let echo: RunningEchoServer;
let dir: string;

before(async () => {
  echo = await startEchoServer({ service: 'web', instance: 'web-1', host: '127.0.0.1', port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'portico-refused-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
});

after(async () => {
  await echo?.close();
  await rm(dir, { recursive: true, force: true });
});

const web = () => backend('default-web-80', [{ address: '127.0.0.1', port: echo.port }]);

function ingressLocation(path: string, ingress: IngressRef, snippet?: string): Location {
  const chosen = annotations();
  return { path, match: 'prefix', backend: web().name, ingress, annotations: snippet === undefined ? chosen : { ...chosen, configurationSnippet: snippet } };
}

/** The catch-all and one host whose paths each come from their own Ingress. */
function configurationWith(locations: Location[]): Configuration {
  return configuration({ servers: [server('_', []), server('app.example.com', locations)], backends: [web()] });
}

function refusal(outcome: ApplyOutcome): { error: string; origin: unknown } {
  assert.equal(outcome.outcome, 'rejected', JSON.stringify(outcome));
  return outcome.outcome === 'rejected' ? { error: outcome.error, origin: outcome.origin } : { error: '', origin: undefined };
}

test('the line nginx refuses is traced to the Ingress that wrote it, at start and at a reload', options, async () => {
  const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
  const prefix = join(dir, 'nginx');
  const dataPlane = new NginxDataPlane({ prefix, logger: silentLogger(), ports: { http, https, defaultServer, status }, listenAddresses: ['127.0.0.1'],
    endpointGuard: { porticoPorts: [http, https, defaultServer, status], interfaceAddresses: [], refuseLoopbackEverywhere: false },
  });
  const good = ingressLocation('/', ingressRef('team', 'good'));
  try {
    // nginx -t refuses the first configuration: nothing starts, and the culprit is named.
    const atStart = refusal(await (await dataPlane.apply(configurationWith([good, ingressLocation('/bad', ingressRef('team', 'bad'), 'bogus_directive on;')]))).done);
    assert.match(atStart.error, /unknown directive "bogus_directive"/);
    assert.deepEqual(atStart.origin, { kind: 'ingress', ingress: ingressRef('team', 'bad') });
    assert.equal(dataPlane.nginx.running, false);

    // Without it nginx starts.
    assert.equal((await (await dataPlane.apply(configurationWith([good]))).done).outcome, 'reloaded');
    assert.equal(echoed(await httpGet({ port: http, host: 'app.example.com', path: '/x' })).instance, 'web-1');

    // The master refuses a reload: the previous configuration serves, and the culprit is named.
    const other = ingressLocation('/other', ingressRef('team', 'other'), 'add_header X-A "b"; bogus_other on;');
    const atReload = refusal(await (await dataPlane.apply(configurationWith([good, other]))).done);
    assert.match(atReload.error, /unknown directive "bogus_other"/);
    assert.deepEqual(atReload.origin, { kind: 'ingress', ingress: ingressRef('team', 'other') });
    // The error names the refused text, kept for inspection; its line is the snippet's.
    const [, file = '', line = '0'] = /in (\S+):(\d+)/.exec(atReload.error) ?? [];
    const refusedLine = (await readFile(file, 'utf8')).split('\n')[Number(line) - 1];
    assert.equal(refusedLine?.trim(), 'add_header X-A "b"; bogus_other on;');
    assert.equal(echoed(await httpGet({ port: http, host: 'app.example.com', path: '/other' })).instance, 'web-1');
    assert.equal(dataPlane.nginx.reloads, 0);
  } finally {
    await dataPlane.stop();
  }
});
