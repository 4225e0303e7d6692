// ingress-nginx annotations through real nginx to real backends: rewrites and
// host-wide regex mode, source ranges, body size, backend TLS, refusal of
// invalid values (the last good version keeps serving) and the global
// ConfigMap's defaults.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { EchoResponse } from '../../tools/echo/echoServer.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpGetOptions, type HttpResult } from '../support/httpGet.js';
import {
  applyIngress,
  applyIngressAndReload,
  createService,
  ECHO_PORT,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
  type PathSpec,
} from '../support/e2eCluster.js';

const run = promisify(execFile);

let cluster: E2eCluster;

before(async () => {
  cluster = await startE2eCluster('annotations');
  for (const service of ['echo', 'other']) await createService(cluster, service, await startBackends(cluster, service));
});
after(() => cluster?.close());

/** Every test's Ingress has a host of its own, named after the Ingress. */
function hostOf(name: string): string {
  return `${name}.annotations.test`;
}

function nginxAnnotations(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [`nginx.ingress.kubernetes.io/${name}`, value]));
}

const ROOT_TO_ECHO: PathSpec = ['/', 'Prefix', 'echo'];

/**
 * An Ingress of `portico`'s class for the host named after it, with these nginx.ingress.kubernetes.io/ annotations;
 * `andReload`: until nginx reloaded with it and the workers of before retired (one would 404 a new host).
 */
async function applyAnnotated(
  portico: E2eCluster,
  name: string,
  annotations: Record<string, string>,
  specs: readonly PathSpec[] = [ROOT_TO_ECHO],
  andReload = false,
): Promise<void> {
  await (andReload ? applyIngressAndReload : applyIngress)(
    portico,
    ingress(portico, name, { rules: [{ host: hostOf(name), http: { paths: paths(...specs) } }] }, nginxAnnotations(annotations)),
  );
}

type RequestOptions = Omit<HttpGetOptions, 'port' | 'host'>;

function send(portico: E2eCluster, name: string, options: RequestOptions): Promise<HttpResult> {
  return httpGet({ port: portico.portico.ports.http, host: hostOf(name), ...options });
}

/** Waits until a request to the host named `name` gets `status`, and returns that answer. */
function untilStatus(portico: E2eCluster, name: string, status: number, options: RequestOptions = {}): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await send(portico, name, options);
      assert.equal(result.status, status, `${options.method ?? 'GET'} ${hostOf(name)}${options.path ?? '/'}: ${result.body.slice(0, 200)}`);
      return result;
    },
    { timeoutMs: 15_000 },
  );
}

/** The whole echo JSON: echoed() types only the fields routing needs. */
function fullEcho(result: HttpResult): EchoResponse {
  return echoed(result) as unknown as EchoResponse;
}

// 4 KiB: over 1k, under 10k and under the 1m default.
const LARGE_POST: RequestOptions = { method: 'POST', body: 'x'.repeat(4096) };

describe('rewrite-target and regex paths', () => {
  const applyRewrite = (): Promise<void> =>
    applyAnnotated(cluster, 'rewrite', { 'rewrite-target': '/$2' }, [['/something(/|$)(.*)', 'ImplementationSpecific', 'echo']]);

  test('rewrite-target /$2 passes the second capture and keeps the query', async () => {
    await applyRewrite();
    const rewritten = echoed(await untilStatus(cluster, 'rewrite', 200, { path: '/something/new/x?q=1' }));
    assert.equal(rewritten.path, '/new/x');
    assert.equal(rewritten.query, 'q=1');
    assert.equal(echoed(await untilStatus(cluster, 'rewrite', 200, { path: '/something' })).path, '/');
  });

  test('a rewrite turns every path of the host into a case-insensitive regex, other Ingresses included', async () => {
    await applyRewrite();
    // Another team's plain Prefix path on the same host, without annotations.
    await applyIngress(
      cluster,
      ingress(cluster, 'rewrite-neighbour', {
        rules: [{ host: hostOf('rewrite'), http: { paths: paths(['/plain', 'Prefix', 'other']) } }],
      }),
    );
    const neighbour = echoed(await untilStatus(cluster, 'rewrite', 200, { path: '/Plain/page' }));
    assert.equal(neighbour.service, 'other');
    // The rewrite belongs to the other Ingress: this path arrives as sent.
    assert.equal(neighbour.path, '/Plain/page');
  });

  test('use-regex matches the path as a regular expression', async () => {
    await applyAnnotated(cluster, 'regex', { 'use-regex': 'true' }, [['/api/v[0-9]+/users', 'ImplementationSpecific', 'echo']]);
    assert.equal(echoed(await untilStatus(cluster, 'regex', 200, { path: '/api/v2/users' })).path, '/api/v2/users');
    await untilStatus(cluster, 'regex', 404, { path: '/api/vx/users' });
  });
});

describe('source ranges (requests come from 127.0.0.1)', () => {
  const SOURCE_RANGE_TABLE: readonly [name: string, annotations: Record<string, string>, status: number][] = [
    ['allow-elsewhere', { 'allowlist-source-range': '10.0.0.0/8' }, 403],
    ['allow-loopback', { 'allowlist-source-range': '127.0.0.1/32' }, 200],
    ['allow-alias', { 'whitelist-source-range': '10.0.0.0/8' }, 403],
    ['deny-loopback', { 'denylist-source-range': '127.0.0.0/8' }, 403],
    ['deny-beats-allow', { 'allowlist-source-range': '127.0.0.1/32', 'denylist-source-range': '127.0.0.0/8' }, 403],
  ];

  before(async () => {
    for (const [name, annotations] of SOURCE_RANGE_TABLE) await applyAnnotated(cluster, name, annotations);
  });

  for (const [name, annotations, status] of SOURCE_RANGE_TABLE) {
    const description = Object.entries(annotations)
      .map(([key, value]) => `${key}: ${value}`)
      .join(', ');
    test(`${description} → ${status}`, async () => {
      await untilStatus(cluster, name, status);
    });
  }
});

describe('proxy-body-size', () => {
  test('1k refuses a 4 KiB body with 413', async () => {
    await applyAnnotated(cluster, 'body-1k', { 'proxy-body-size': '1k' });
    await untilStatus(cluster, 'body-1k', 413, LARGE_POST);
  });

  test('10k lets a 4 KiB body through', async () => {
    await applyAnnotated(cluster, 'body-10k', { 'proxy-body-size': '10k' });
    assert.equal(fullEcho(await untilStatus(cluster, 'body-10k', 200, LARGE_POST)).body, LARGE_POST.body);
  });
});

describe('an invalid annotation value', () => {
  let markerSyncs = 0;

  /**
   * Returns once Portico has applied a change made after everything before
   * the call: syncs run one after another, so by then nginx runs whatever an
   * earlier sync decided (a refusal is reported before its sync's reload).
   */
  async function untilLaterSyncApplied(): Promise<void> {
    const path = `/sync-${++markerSyncs}`;
    await applyAnnotated(cluster, 'sync-marker', {}, [[path, 'Exact', 'echo']]);
    await untilStatus(cluster, 'sync-marker', 200, { path });
  }

  async function rejections(name: string): Promise<CoreV1Event[]> {
    const events = await cluster.core.listNamespacedEvent({ namespace: cluster.namespace, fieldSelector: `involvedObject.name=${name}` });
    return events.items.filter((event) => event.type === 'Warning' && event.reason === 'Rejected');
  }

  /** The Rejected Warning Events on the Ingress, once there is one. */
  function untilRejected(name: string): Promise<CoreV1Event[]> {
    return eventually(
      async () => {
        const found = await rejections(name);
        assert.ok(found.length > 0, `no Rejected Warning Event on ${name}`);
        return found;
      },
      { timeoutMs: 15_000 },
    );
  }

  const INVALID_VALUES: readonly [annotation: string, invalid: string, valid: string][] = [
    ['proxy-body-size', '1m; evil', '2m'],
    ['ssl-redirect', 'maybe', 'false'],
  ];

  for (const [annotation, invalid, valid] of INVALID_VALUES) {
    test(`${annotation}: ${JSON.stringify(invalid)} keeps the last good version serving until fixed`, async () => {
      const name = `refused-${annotation}`;
      // Its reload waited for: a new plain host answers from its pending route before it, and a worker of before
      // would 404 the host after it, in the requests asked once below.
      await applyAnnotated(cluster, name, {}, [['/v1', 'Prefix', 'echo']], true);
      await untilStatus(cluster, name, 200, { path: '/v1' });

      // The new version moves the path as well, so traffic tells which version serves.
      await applyAnnotated(cluster, name, { [annotation]: invalid }, [['/v2', 'Prefix', 'echo']]);
      const [rejection] = await untilRejected(name);
      assert.match(rejection?.message ?? '', new RegExp(annotation));
      await untilLaterSyncApplied();
      // Asked once, not until true: every configuration nginx ran since /v1 first served agrees on these.
      assert.equal((await send(cluster, name, { path: '/v1' })).status, 200);
      assert.equal((await send(cluster, name, { path: '/v2' })).status, 404);

      await applyAnnotated(cluster, name, { [annotation]: valid }, [['/v2', 'Prefix', 'echo']]);
      await untilStatus(cluster, name, 200, { path: '/v2' });
      // Until true: right after a reload, an old nginx worker may still take a connection.
      await untilStatus(cluster, name, 404, { path: '/v1' });
    });
  }

  test('a regex path with a group named like an nginx variable is Rejected, naming the path; the last good version keeps serving', async () => {
    const name = 'refused-regex-path';
    await applyAnnotated(cluster, name, { 'use-regex': 'true', 'rewrite-target': '/$1' }, [['/v1/(.*)', 'ImplementationSpecific', 'echo']]);
    assert.equal(echoed(await untilStatus(cluster, name, 200, { path: '/v1/x' })).path, '/x');

    const hostile = '/(?<proxy_upstream_name>[a-z0-9-]+)/(.*)';
    await applyAnnotated(cluster, name, { 'use-regex': 'true', 'rewrite-target': '/$2' }, [[hostile, 'ImplementationSpecific', 'echo']]);
    const [rejection] = await untilRejected(name);
    assert.ok(rejection?.message?.includes(`path ${JSON.stringify(hostile)} of host ${hostOf(name)}`), rejection?.message);
    assert.match(rejection?.message ?? '', /named groups/);
    await untilLaterSyncApplied();
    assert.equal(echoed(await send(cluster, name, { path: '/v1/x' })).path, '/x');
  });
});

describe('backend-protocol', () => {
  let certificateDir: string | undefined;

  before(async () => {
    certificateDir = await mkdtemp(join(tmpdir(), 'portico-e2e-backend-tls-'));
    const tls = { certFile: join(certificateDir, 'echo.crt'), keyFile: join(certificateDir, 'echo.key') };
    // nginx does not verify upstream certificates unless asked to, so a self-signed one will do.
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
        tls.keyFile,
        '-out',
        tls.certFile,
        '-days',
        '1',
        '-subj',
        '/CN=secure-echo',
      ],
      { timeout: 30_000 },
    );
    const address = await cluster.network.addAddress();
    await createService(cluster, 'secure', [
      await cluster.network.startEcho({ service: 'secure', instance: 'secure-1', address, port: ECHO_PORT, tls }),
    ]);
  });
  after(async () => {
    if (certificateDir !== undefined) await rm(certificateDir, { recursive: true, force: true });
  });

  test('HTTPS makes nginx talk TLS to the backend', async () => {
    await applyAnnotated(cluster, 'https-backend', { 'backend-protocol': 'HTTPS' }, [['/', 'Prefix', 'secure']]);
    assert.equal(fullEcho(await untilStatus(cluster, 'https-backend', 200)).tls, true);
  });
});

describe('the global ConfigMap', () => {
  const SETTINGS_NAME = 'portico-settings';
  let configured: E2eCluster;

  before(async () => {
    // A second Portico in the suite's namespace (with a class of its own) reading a ConfigMap there.
    configured = await startE2eCluster('annotations-configmap', [`--configmap=${cluster.namespace}/${SETTINGS_NAME}`], {
      namespace: cluster.namespace,
    });
  });
  after(() => configured?.close());

  test('proxy-body-size: 1k applies to Ingresses without their own annotation, not to those with one', async () => {
    await applyAnnotated(configured, 'configmap-default', {});
    await applyAnnotated(configured, 'configmap-annotated', { 'proxy-body-size': '10k' });
    // The 1m default first, so that the 413 below can only come from the ConfigMap.
    await untilStatus(configured, 'configmap-default', 200, LARGE_POST);

    await cluster.core.createNamespacedConfigMap({
      namespace: cluster.namespace,
      body: { metadata: { name: SETTINGS_NAME }, data: { 'proxy-body-size': '1k' } },
    });
    await untilStatus(configured, 'configmap-default', 413, LARGE_POST);
    await untilStatus(configured, 'configmap-annotated', 200, LARGE_POST);
  });
});
