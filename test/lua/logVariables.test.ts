// ingress-nginx's log variables as a real nginx logs them with Portico's
// rendered nginx.conf: a log-format-upstream naming all of them, requests to
// a proxied location, a 404 location, the catch-all, a custom-http-errors
// location (whose error page service also gets them as X-Namespace...
// headers), a location whose snippet sets one, and a pending route (a host
// served before its reload). The expected lines are the values the locations' own `set`s gave before
// renderLogVariables.ts: any change to a value fails here.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { liveStateOf } from '../../src/dataplane/live/liveState.js';
import { NginxDataPlane } from '../../src/dataplane/nginxDataPlane.js';
import { silentLogger } from '../../src/log/logger.js';
import type { ErrorPages } from '../../src/model/annotations/errorPageAnnotations.js';
import type { Configuration, Location } from '../../src/model/types.js';
import { startEchoServer, type RunningEchoServer } from '../../tools/echo/echoServer.js';
import { backend, configuration, ingressRef, location, server } from '../dataplane/nginx/render/fixtures.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { missingLuaNginx } from './luaNginx.js';

const options = { skip: missingLuaNginx, timeout: 60_000 };
const VARIABLES = [
  '$proxy_upstream_name',
  '$proxy_alternative_upstream_name',
  '$namespace',
  '$ingress_name',
  '$service_name',
  '$service_port',
  '$location_path',
];
const LOG_FORMAT = `logvars $request_uri|${VARIABLES.join('|')}`;

let echo: RunningEchoServer;
let dir: string;

before(async () => {
  echo = await startEchoServer({ service: 'web', instance: 'web-1', host: '127.0.0.1', port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'portico-logvars-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
});

after(async () => {
  await echo?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function configurations(): { running: Configuration; next: Configuration } {
  const endpoints = [{ address: '127.0.0.1', port: echo.port }];
  const web = backend('shop/web:http', endpoints, { namespace: 'shop', name: 'web', port: 'http' });
  const empty = backend('shop/empty:8080', [], { namespace: 'shop', name: 'empty', port: 8080 });
  const errors = backend('ops/errors:80', endpoints, { namespace: 'ops', name: 'errors', port: 80 });
  const errorPages: ErrorPages = { codes: [503], interceptUpstream: true, global: false, defaultBackendService: undefined, defaultBackend: undefined };
  const ingress = ingressRef('shop', 'storefront');
  const running = configuration({
    servers: [
      server('_', []),
      server('shop.example', [
        location('/app', 'prefix', web.name, { ingress }),
        location('/with space', 'exact', web.name, { ingress }),
        location('/none', 'exact', undefined, { ingress }),
        withErrorPages(location('/errors', 'exact', empty.name, { ingress }), errorPages),
        // A snippet's `set` still gives a variable its own value.
        withSnippet(location('/snippet', 'exact', web.name, { ingress }), 'set $service_port "from-snippet";'),
      ]),
    ],
    backends: [web, empty, errors],
    defaultBackend: errors.name,
    settings: { logFormatUpstream: LOG_FORMAT },
  });
  const next = configuration({
    ...running,
    servers: [...running.servers, server('pending.example', [location('/p', 'prefix', web.name, { ingress: ingressRef('shop', 'later') })])],
  });
  return { running, next };
}

function withErrorPages(plain: Location, errorPages: ErrorPages): Location {
  return { ...plain, annotations: { ...plain.annotations, errorPages } };
}

function withSnippet(plain: Location, configurationSnippet: string): Location {
  return { ...plain, annotations: { ...plain.annotations, configurationSnippet } };
}

async function loggedLines(file: string): Promise<string[]> {
  const content = await readFile(file, 'utf8').catch(() => '');
  return content
    .split('\n')
    .filter((line) => line.startsWith('logvars '))
    .map((line) => line.slice('logvars '.length));
}

test('every location kind logs the log variables ingress-nginx sets, with the values of its location', options, async () => {
  const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
  const dataPlane = new NginxDataPlane({
    prefix: join(dir, 'nginx'),
    logger: silentLogger(),
    ports: { http, https, defaultServer, status },
    listenAddresses: ['127.0.0.1'],
    endpointGuard: { porticoPorts: [http, https, defaultServer, status], interfaceAddresses: [], refuseLoopbackEverywhere: false },
  });
  const { running, next } = configurations();
  try {
    await dataPlane.apply(running);
    await dataPlane.live.push(liveStateOf(next, new Set(running.servers.map((entry) => entry.hostname))));
    const requests: Array<[host: string, path: string, status: number, line: string]> = [
      ['shop.example', '/app/cart', 200, '/app/cart|shop/web:http||shop|storefront|web|http|/app'],
      ['shop.example', '/app', 200, '/app|shop/web:http||shop|storefront|web|http|/app'],
      ['shop.example', '/with%20space', 200, '/with%20space|shop/web:http||shop|storefront|web|http|/with space'],
      ['shop.example', '/none', 404, '/none|-||shop|storefront|||/none'],
      // The host's generated "/" (no Ingress).
      ['shop.example', '/other', 404, '/other|-||||||/'],
      ['unknown.example', '/x', 404, '/x|-||||||/'],
      // The error page service answers the 503; the variables still name the location's own Service.
      ['shop.example', '/errors', 200, '/errors|ops/errors:80||shop|storefront|empty|8080|/errors'],
      ['shop.example', '/snippet', 200, '/snippet|shop/web:http||shop|storefront|web|from-snippet|/snippet'],
      // Routed by the catch-all's Lua before its reload.
      ['pending.example', '/p/q', 200, '/p/q|shop/web:http||shop|later|web|http|/p'],
    ];
    for (const [host, path, expected] of requests) {
      assert.equal((await httpGet({ port: http, host, path })).status, expected, `${host}${path}`);
    }
    const errorPage = echoed(await httpGet({ port: http, host: 'shop.example', path: '/errors' }));
    const contextHeaders = ['x-code', 'x-namespace', 'x-ingress-name', 'x-service-name', 'x-service-port'].map((name) => errorPage.headers[name]);
    assert.deepEqual(contextHeaders, ['503', 'shop', 'storefront', 'empty', '8080']);
    // Two workers: a request's line may be written after the next request's, so the lines are compared as a set.
    const expectedLines = [...requests.map(([, , , line]) => line), requests[6]![3]];
    await eventually(async () => {
      const lines = await loggedLines(dataPlane.nginx.layout.accessLog);
      assert.deepEqual([...lines].sort(), [...expectedLines].sort());
    });
    const errorLog = await readFile(dataPlane.nginx.layout.errorLog, 'utf8');
    const variables = VARIABLES.map((variable) => variable.slice(1)).join('|');
    assert.doesNotMatch(errorLog, new RegExp(`uninitialized "(${variables}|portico_pending_hsts)"`), 'nginx gave every variable read a value');
  } finally {
    await dataPlane.stop();
  }
});
