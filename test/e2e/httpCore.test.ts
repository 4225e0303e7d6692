// gzip and default-type through the real API server, Portico, nginx and an
// echo backend, as ingress-nginx's e2e settings/gzip.go and default type
// expectations: the global ConfigMap turns compression on (one reload), a
// large compressible answer is then gzip-encoded for a client that accepts
// it, and not below gzip-min-length, not for types outside gzip-types.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { stat } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import {
  applyIngressAndReload,
  changeAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { putSettings, startSettingsCluster } from '../support/settingsCluster.js';
import { appliedConfigurations, readFrom } from '../support/porticoLog.js';

const HOST = 'gzip.httpcore.test';
/** The echo backend answers a POST with its body inside JSON (application/json): this makes an answer of about 20 KB. */
const LARGE_BODY = 'compressible '.repeat(1500);

let cluster: E2eCluster;

before(async () => {
  cluster = await startSettingsCluster('httpcore');
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'gzip', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'echo']) } }] }),
  );
});
after(() => cluster?.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request with the bytes of the answer as sent (httpGet decodes them as text). */
function send(port: number, path: string, options: { host?: string; body?: string; acceptGzip?: boolean } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.body === undefined ? 'GET' : 'POST',
        headers: { ...(options.host ? { host: options.host } : {}), ...(options.acceptGzip ? { 'accept-encoding': 'gzip' } : {}) },
        agent: false,
        timeout: 5000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to :${port}${path} timed out`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

const large = (acceptGzip = true) => send(cluster.portico.ports.http, '/large', { host: HOST, body: LARGE_BODY, acceptGzip });
const small = () => send(cluster.portico.ports.http, '/small', { host: HOST, acceptGzip: true });
/** The status server's /healthz is `return 200`: nginx itself gives it default_type. */
const nginxTyped = () => send(cluster.portico.ports.status, '/healthz');

/** The answer's JSON, decompressed when it is gzip-encoded. */
function echoedBody(answer: RawAnswer): string {
  const bytes = answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.body) : answer.body;
  return (JSON.parse(bytes.toString('utf8')) as { body: string }).body;
}

/**
 * Replaces the ConfigMap's data and waits until `check` holds and the sync loop has logged the
 * configuration as applied; returns those log lines (the next change's start after them). Each
 * change here reloads: the old workers' retirement is waited for, as the tests send more requests.
 */
async function configure(data: Record<string, string>, check: () => Promise<void>): Promise<string[]> {
  const log = cluster.portico.process.logPath;
  const offset = (await stat(log)).size;
  await changeAndReload([cluster.portico], 'the ConfigMap', () => putSettings(cluster, data));
  return eventually(
    async () => {
      await check();
      const { lines } = appliedConfigurations(await readFrom(log, offset));
      assert.ok(lines.length > 0, 'no configuration applied yet');
      return lines;
    },
    { timeoutMs: 20_000 },
  );
}

/** One configuration applied, with a reload. */
function assertOneReload(lines: readonly string[]): void {
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.equal(appliedConfigurations(lines.join('\n')).reloads, 1, lines[0]);
}

test('without use-gzip a large answer is sent as the backend wrote it, and nginx types its own answers text/html', async () => {
  const answer = await eventually(async () => {
    const result = await large();
    assert.equal(result.status, 200);
    return result;
  });
  assert.equal(answer.headers['content-encoding'], undefined);
  assert.equal(echoedBody(answer), LARGE_BODY);
  assert.equal((await nginxTyped()).headers['content-type'], 'text/html');
});

test('use-gzip, gzip-min-length and default-type: one reload, then large answers are gzip-encoded, small ones not', async () => {
  const applied = await configure(
    { 'use-gzip': 'true', 'gzip-min-length': '4096', 'default-type': 'application/x-portico-probe' },
    async () => {
      assert.equal((await large()).headers['content-encoding'], 'gzip');
    },
  );
  assertOneReload(applied);
  const compressed = await large();
  assert.equal(echoedBody(compressed), LARGE_BODY);
  assert.ok(compressed.body.length < LARGE_BODY.length / 10, `${compressed.body.length} bytes`);
  assert.match(String(compressed.headers.vary), /Accept-Encoding/);
  // Not for a client that does not ask for it.
  assert.equal((await large(false)).headers['content-encoding'], undefined);
  // An answer below gzip-min-length (the echo of a GET is well under 4096 bytes).
  const below = await small();
  assert.ok(below.body.length < 4096 && below.body.length > 256, `${below.body.length} bytes`);
  assert.equal(below.headers['content-encoding'], undefined);
  assert.equal((await nginxTyped()).headers['content-type'], 'application/x-portico-probe');
});

test('gzip-types without application/json: the JSON answer is no longer compressed', async () => {
  await configure({ 'use-gzip': 'true', 'gzip-min-length': '0' }, async () => {
    assert.equal((await small()).headers['content-encoding'], 'gzip');
  });
  const applied = await configure({ 'use-gzip': 'true', 'gzip-min-length': '0', 'gzip-types': 'text/css text/plain' }, async () => {
    assert.equal((await small()).headers['content-encoding'], undefined);
  });
  assertOneReload(applied);
  assert.equal((await large()).headers['content-encoding'], undefined);
  assert.equal((await nginxTyped()).headers['content-type'], 'text/html');
});
