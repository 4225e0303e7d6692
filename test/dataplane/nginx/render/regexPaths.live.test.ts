// Regex paths and rewrite targets from Ingresses, through the controller's
// acceptance, the model and the renderer, served by a real nginx: the
// named-capture attack (a group named proxy_upstream_name picking another
// namespace's backend) no longer reaches it, and ingress-nginx's documented
// `${2}` rewrites as ingress-nginx means it (nginx itself refuses `${2}`); and
// a regex that backtracks on a request stops at Portico's match limit.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { IngressAcceptance } from '../../../../src/controller/ingressAcceptance.js';
import { liveStateOf } from '../../../../src/dataplane/live/liveState.js';
import { LiveStateClient } from '../../../../src/dataplane/live/liveStateClient.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { RenderContext } from '../../../../src/dataplane/nginx/render/renderContext.js';
import type { EndpointSlice, Ingress, Service } from '../../../../src/kube/objects.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { defaultLocationAnnotations } from '../../../../src/model/annotations/parseIngressAnnotations.js';
import { buildConfiguration } from '../../../../src/model/buildConfiguration.js';
import { DEFAULT_SETTINGS } from '../../../../src/model/settings/globalSettings.js';
import { startEchoServer, type EchoResponse, type RunningEchoServer } from '../../../../tools/echo/echoServer.js';
import { spawnGuarded, type GuardedProcess } from '../../../support/childProcess.js';
import { freeLoopbackPorts } from '../../../support/freePort.js';
import { httpGet } from '../../../support/httpGet.js';
import { ALLOW_ALL_ENDPOINTS } from '../../../model/modelTestSupport.js';
import { location, server, testContext } from './fixtures.js';
import { createNginxPrefix, missingNginx, NGINX_BINARY, type NginxPrefix } from './nginxPrefix.js';

const PREFIX = 'nginx.ingress.kubernetes.io';

function ingressOf(
  namespace: string,
  name: string,
  host: string,
  path: string,
  service: string,
  annotations: Record<string, string>,
): Ingress {
  return {
    metadata: {
      namespace,
      name,
      resourceVersion: '1',
      creationTimestamp: '2026-01-01T00:00:00Z',
      annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value])),
    },
    spec: {
      rules: [
        {
          host,
          http: { paths: [{ path, pathType: 'ImplementationSpecific', backend: { service: { name: service, port: { number: 80 } } } }] },
        },
      ],
    },
  };
}

/** A Service on port 80 and its EndpointSlice, whose one endpoint is an echo server on loopback. */
function serviceAt(namespace: string, name: string, port: number): { service: Service; slice: EndpointSlice } {
  return {
    service: { metadata: { namespace, name }, spec: { ports: [{ port: 80 }] } },
    slice: {
      metadata: { namespace, name: `${name}-x`, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'] }],
      ports: [{ port }],
    },
  };
}

describe('regex paths and rewrite targets served by nginx', { skip: missingNginx }, () => {
  let tenant: RunningEchoServer;
  let victim: RunningEchoServer;
  let context: RenderContext;
  let prefix: NginxPrefix;
  let nginx: GuardedProcess;
  let socketDir: string;
  let refused: string[];

  before(async () => {
    socketDir = await mkdtemp(join(tmpdir(), 'portico-regex-sockets-'));
    await chmod(socketDir, 0o755);
    tenant = await startEchoServer({ service: 'tenant-web', instance: 'tenant-1', host: '127.0.0.1', port: 0 });
    victim = await startEchoServer({ service: 'victim-secret', instance: 'victim-1', host: '127.0.0.1', port: 0 });
    const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
    context = testContext({
      ports: { http, https, defaultServer, status },
      paths: { noEndpointsSocket: join(socketDir, 'no-endpoints.sock'), configurationSocket: join(socketDir, 'configuration.sock') },
    });

    const objects = [serviceAt('tenant', 'web', tenant.port), serviceAt('victim', 'secret', victim.port)];
    const ingresses = [
      ingressOf('victim', 'secret', 'victim.example', '/', 'secret', {}),
      // The attack of issue 12: the capture named like Portico's variable, set by the rewrite after the location's own `set`.
      ingressOf('tenant', 'attack', 'tenant.example', '/(?<proxy_upstream_name>[a-z0-9-]+)/(.*)', 'web', {
        'use-regex': 'true',
        'rewrite-target': '/$2',
      }),
      ingressOf('tenant', 'unclosed', 'broken.example', '/(', 'web', { 'use-regex': 'true' }),
      ingressOf('tenant', 'braces', 'rewrite.example', '/something(/|$)(.*)', 'web', { 'rewrite-target': '/${2}' }),
    ];
    const acceptance = new IngressAcceptance(PREFIX).update(ingresses, DEFAULT_SETTINGS);
    refused = acceptance.refused.map((refusal) => `${refusal.ingress.metadata?.namespace}/${refusal.ingress.metadata?.name}`);
    const { configuration } = buildConfiguration({
      ingresses: acceptance.accepted,
      lookup: {
        service: (key) => objects.find(({ service }) => `${service.metadata?.namespace}/${service.metadata?.name}` === key)?.service,
        endpointSlicesOfService: (key) =>
          objects
            .filter(({ slice }) => `${slice.metadata?.namespace}/${slice.metadata?.labels?.['kubernetes.io/service-name']}` === key)
            .map(({ slice }) => slice),
        secret: () => undefined,
        configMap: () => undefined,
      },
      settings: DEFAULT_SETTINGS,
      defaultAnnotations: defaultLocationAnnotations(DEFAULT_SETTINGS),
      endpoints: ALLOW_ALL_ENDPOINTS,
    });

    // What the model no longer admits, as an older one handed it to the renderer.
    const nested = location('/(a+)+$', 'regex', 'tenant/web:80', { annotations: { rewrite: { useRegex: true } } });
    configuration.servers.push(server('nested.example', [nested, location('/', 'regex', 'tenant/web:80')]));
    prefix = await createNginxPrefix(renderNginxConf(configuration, context), context);
    nginx = await spawnGuarded('nginx', NGINX_BINARY, prefix.args, `${prefix.dir}/nginx.out`);
    const live = new LiveStateClient({
      socketPath: context.paths.configurationSocket,
      logger: silentLogger(),
      retries: 20,
      backoff: { initialMs: 50, maxMs: 500 },
    });
    await live.push(liveStateOf(configuration, new Set(configuration.servers.map((server) => server.hostname))));
    assert.equal(await live.initialized(), true);
  });

  after(async () => {
    await nginx?.stop(5_000);
    await tenant?.close();
    await victim?.close();
    await prefix?.remove();
    if (socketDir !== undefined) await rm(socketDir, { recursive: true, force: true });
  });

  const get = (host: string, path: string) => httpGet({ port: context.ports.http, host, path });
  const echo = async (host: string, path: string): Promise<EchoResponse> => {
    const reply = await get(host, path);
    assert.equal(reply.status, 200, `${host}${path}: ${reply.body.slice(0, 200)}`);
    return JSON.parse(reply.body) as EchoResponse;
  };

  test('the named-capture Ingress and the unclosed group are refused; the others are served', async () => {
    assert.deepEqual(refused, ['tenant/attack', 'tenant/unclosed']);
    assert.equal((await echo('victim.example', '/x')).service, 'victim-secret');
  });

  test("a request naming the victim's backend on the tenant's host does not reach it", async () => {
    const reply = await get('tenant.example', '/victim-secret-80/x');
    assert.equal(reply.status, 404, reply.body.slice(0, 200));
    assert.doesNotMatch(reply.body, /victim-secret/);
  });

  test('rewrite-target /${2} rewrites to the second capture, keeping the query, as ingress-nginx documents', async () => {
    const rewritten = await echo('rewrite.example', '/something/new/x?q=1');
    assert.equal(rewritten.service, 'tenant-web');
    assert.equal(rewritten.path, '/new/x');
    assert.equal(rewritten.query, 'q=1');
    assert.equal((await echo('rewrite.example', '/SOMETHING')).path, '/');
  });

  test('a request that makes a location regex backtrack past the match limit gets a 500, not 10,000,000 steps of a worker', async () => {
    // (a+)+$ tries about 2^20 ways to split 20 a's before the "!": over Portico's 100,000, under PCRE2's default.
    assert.equal((await get('nested.example', `/${'a'.repeat(20)}!`)).status, 500);
    assert.equal((await echo('nested.example', `/${'a'.repeat(20)}`)).service, 'tenant-web');
    assert.equal((await echo('nested.example', `/b${'a'.repeat(20)}!`)).service, 'tenant-web', 'an ordinary miss falls to "/"');
  });
});
