// Portico changes under steady load without failing a request: endpoints
// scaled up and down, a certificate rotated, and a burst of 100 Ingress
// changes (coalesced into far fewer reloads) while keep-alive clients keep
// sending requests to a host whose backend always has endpoints.
//
// The clients retry like standard HTTP clients (loadGenerator.ts): at a
// reload nginx's retiring workers close their idle keep-alive connections,
// and a request sent on one just then gets no answer byte at all; it is sent
// again on a new connection. The test counts those retries and checks they
// happen only at reloads, at most once per connection per reload.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { appliedConfigurations, readFrom } from '../support/porticoLog.js';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import {
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  setEndpoints,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { describeLoad, startLoad, type LoadGenerator, type LoadReport } from '../support/loadGenerator.js';
import { applyTlsSecret } from '../support/tlsSecrets.js';
import type { EchoBackend } from '../support/testNetwork.js';

const HOST = 'steady.churn.test';
const CONCURRENCY = 8;
const SCALE_CYCLES = 20;
const BURST = 100;
const PHASE_CAP_MS = 40_000;
/** How far from a logged reload an idle connection's close may be seen (the log line follows the workers' start). */
const RELOAD_WINDOW_MS = 1_000;

let cluster: E2eCluster;
let steady: EchoBackend[];
let running: LoadGenerator | undefined;

before(async () => {
  cluster = await startE2eCluster('churn');
  steady = await startBackends(cluster, 'steady', 5);
  await createService(cluster, 'steady', steady.slice(0, 1));
  await applyTlsSecret(cluster, 'steady-tls', [HOST]);
  // Its reload must be over before the phases count theirs (a TLS host is served before it, by its pending route).
  await applyIngressAndReload(
    cluster,
    ingress(
      cluster,
      'steady',
      { tls: [{ hosts: [HOST], secretName: 'steady-tls' }], rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'steady']) } }] },
      // Plain HTTP is served too (not redirected), for the HTTP phases.
      { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' },
    ),
  );
  await eventually(async () => {
    const result = await httpGet({ port: cluster.portico.ports.http, host: HOST });
    assert.equal(result.status === 200 ? echoed(result).instance : result.status, 'steady-1');
    const secure = await httpGet({ port: cluster.portico.ports.https, host: HOST, https: true });
    assert.equal(secure.status, 200);
  });
});
after(async () => {
  await running?.stop();
  await cluster?.close();
});

function load(https = false): LoadGenerator {
  running = startLoad({
    port: https ? cluster.portico.ports.https : cluster.portico.ports.http,
    host: HOST,
    https,
    concurrency: CONCURRENCY,
    maxRequests: 200_000,
    maxDurationMs: PHASE_CAP_MS,
    // HTTPS: a new connection, hence a TLS handshake, every 20 requests of a client.
    ...(https ? { closeConnectionEvery: 20 } : {}),
  });
  return running;
}

async function finish(name: string, generator: LoadGenerator): Promise<LoadReport> {
  const report = await generator.stop();
  running = undefined;
  console.log(describeLoad(name, report));
  return report;
}

/** Reloads logged since `offset`, in ms since `since` (epoch ms). */
async function reloadsSince(offset: number, since: number): Promise<number[]> {
  const { lines } = appliedConfigurations(await readFrom(cluster.portico.process.logPath, offset));
  return lines
    .filter((line) => line.includes('"outcome":"reloaded"'))
    .map((line) => Date.parse((JSON.parse(line) as { time: string }).time) - since);
}

/** Without a reload nginx closes no keep-alive connection early, so no request needed a retry. */
async function assertNoReloadNorRetry(report: LoadReport, logOffset: number): Promise<void> {
  assert.deepEqual(await reloadsSince(logOffset, report.startedAt), [], 'the phase caused no reload');
  assert.equal(report.retriedResets, 0, `retried: ${JSON.stringify(report.retries)}`);
}

function assertNoFailures(report: LoadReport): void {
  assert.ok(report.requests > 0, 'the load sent requests');
  assert.notEqual(report.ended, 'max-duration', 'the phase finished before the load hit its time cap');
  assert.equal(report.networkErrors, 0, `network errors: ${JSON.stringify(report.failures)}`);
  assert.equal(report.serverErrors, 0, `5xx: ${JSON.stringify(report.statuses)}`);
  assert.deepEqual(Object.keys(report.statuses), ['200'], `statuses: ${JSON.stringify(report.statuses)}`);
}

/** Waits (bounded) until the load has seen `count` answers after `mark` that all satisfy `ok`. */
async function loadSees(generator: LoadGenerator, ok: (outcomes: string[]) => boolean, count: number, what: string): Promise<void> {
  const mark = generator.completed();
  await eventually(
    () => {
      const outcomes = generator.outcomesSince(mark);
      const window = outcomes.slice(-count);
      assert.ok(window.length >= count && ok(window), `${what}: last answers ${window.slice(-10).join(',')}`);
    },
    { timeoutMs: 10_000, intervalMs: 20 },
  );
}

test('(a) scaling endpoints 1 → 5 → 1 twenty times fails no request', async () => {
  const logOffset = (await stat(cluster.portico.process.logPath)).size;
  const generator = load();
  let report: LoadReport;
  try {
    await loadSees(generator, (window) => window.every((outcome) => outcome === 'steady-1'), 50, 'warm-up');
    for (let cycle = 0; cycle < SCALE_CYCLES; cycle++) {
      await setEndpoints(
        cluster,
        'steady',
        steady.map((backend) => backend.address),
      );
      await loadSees(generator, (window) => new Set(window).size === 5, 100, `cycle ${cycle}: scaled to 5`);
      await setEndpoints(cluster, 'steady', [steady[0]?.address ?? '']);
      await loadSees(generator, (window) => window.every((outcome) => outcome === 'steady-1'), 100, `cycle ${cycle}: scaled to 1`);
    }
  } finally {
    report = await finish('(a) endpoint churn', generator);
  }
  assertNoFailures(report);
  await assertNoReloadNorRetry(report, logOffset);
  assert.equal(Object.keys(report.instances).length, 5, 'traffic reached all five endpoints');
});

test('(b) rotating the certificate under HTTPS load fails no request', async () => {
  const logOffset = (await stat(cluster.portico.process.logPath)).size;
  const generator = load(true);
  let report: LoadReport;
  try {
    await loadSees(generator, (window) => window.every((outcome) => outcome.startsWith('steady-')), 50, 'warm-up');
    for (let rotation = 0; rotation < 3; rotation++) {
      const next = await applyTlsSecret(cluster, 'steady-tls', [HOST]);
      await eventually(async () =>
        assert.equal(
          (await httpGet({ port: cluster.portico.ports.https, host: HOST, https: true })).certificate?.fingerprint256,
          next.fingerprint256,
        ),
      );
      // New connections of the load pick the new certificate up too.
      // With a message: a message-less assert.ok that fails makes Node parse the (transpiled, one-line) source to
      // describe it, which inside this polling loop starves the load of CPU for minutes.
      await eventually(
        () => {
          const seen = generator.snapshot().certificates[next.fingerprint256] ?? 0;
          assert.ok(seen >= 50, `answers with the new certificate: ${seen}`);
        },
        { timeoutMs: 10_000 },
      );
    }
  } finally {
    report = await finish('(b) certificate rotation', generator);
  }
  assertNoFailures(report);
  await assertNoReloadNorRetry(report, logOffset);
  assert.equal(Object.keys(report.certificates).length, 4, 'the load saw the first certificate and its three rotations');
});

test('(c) a burst of 100 Ingress changes is coalesced into few reloads, all hosts served', async (t) => {
  await createService(cluster, 'burst', await startBackends(cluster, 'burst'));
  const logPath = cluster.portico.process.logPath;
  const generator = load();
  let reloadsAt: number[] = [];
  let crashes: string[] = [];
  let report: LoadReport;
  try {
    await loadSees(generator, (window) => window.every((outcome) => outcome.startsWith('steady-')), 50, 'warm-up');
    const logOffset = (await stat(logPath)).size;
    const started = Date.now();
    const hosts = Array.from({ length: BURST }, (_, i) => `burst-${i}.churn.test`);
    // As fast as the API allows: all 100 creations in flight at once.
    await Promise.all(
      hosts.map((host, i) =>
        cluster.networking.createNamespacedIngress({
          namespace: cluster.namespace,
          body: ingress(cluster, `burst-${i}`, { rules: [{ host, http: { paths: paths(['/', 'Prefix', 'burst']) } }] }),
        }),
      ),
    );
    const appliedMs = Date.now() - started;
    // Every new host is served.
    await eventually(
      async () => {
        for (const host of hosts) {
          const result = await httpGet({ port: cluster.portico.ports.http, host });
          assert.equal(result.status === 200 ? echoed(result).service : result.status, 'burst', host);
        }
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const servedMs = Date.now() - started;
    // Let trailing syncs of the burst land in the log.
    await sleep(1_500);
    const log = await readFrom(logPath, logOffset);
    const { lines: applied } = appliedConfigurations(log);
    reloadsAt = await reloadsSince(logOffset, generator.snapshot().startedAt);
    const unchanged = applied.filter((line) => line.includes('"outcome":"unchanged"')).length;
    console.log(
      `(c) ${BURST} Ingresses created in ${appliedMs} ms, all served after ${servedMs} ms: ${reloadsAt.length} reloads, ` +
        `${unchanged} applied without reload (${applied.length} 'configuration applied' lines); ` +
        `reloads logged as applied (after nginx confirmed new workers) at, since the load started: ${reloadsAt.map((at) => `+${at}ms`).join(', ')}`,
    );
    const nginxLog = await readFrom(join(cluster.portico.prefix, 'logs', 'error.log'), 0).catch(() => '');
    const nginxProblems = nginxLog.split('\n').filter((line) => /\[(warn|error|crit|alert|emerg)\]/.test(line));
    if (nginxProblems.length > 0) console.log(`(c) nginx error.log problems:\n  ${nginxProblems.slice(-10).join('\n  ')}`);
    // A crashed worker also drops requests without an answer byte; the retries must not hide one.
    crashes = nginxLog.split('\n').filter((line) => line.includes('exited on signal'));
    const refused = log.split('\n').filter((line) => line.includes('nginx refused'));
    assert.deepEqual(refused, [], 'nginx accepted every configuration');
  } finally {
    report = await finish('(c) ingress burst', generator);
  }
  const reloads = reloadsAt.length;
  console.log(
    `(c) ${reloads} reloads; ${report.retriedResets} requests retried after an idle keep-alive connection was closed by a retiring worker`,
  );
  assert.ok(reloads >= 1, 'the burst caused at least one reload');
  assert.ok(reloads <= 20, `coalesced: ${reloads} reloads for ${BURST} changes`);
  assert.ok(!cluster.portico.process.hasExited(), 'portico still runs');
  await t.test('no request fails across the reloads; retries only where a reload closed an idle connection', () => {
    assertNoFailures(report);
    assert.deepEqual(crashes, [], 'no nginx worker crashed');
    // Each reload retires each client's connection at most once; the retry goes out on a new one.
    assert.ok(
      report.retriedResets <= CONCURRENCY * reloads,
      `${report.retriedResets} retries for ${reloads} reloads of ${CONCURRENCY} connections`,
    );
    const awayFromReloads = report.retries.filter((retry) => !reloadsAt.some((at) => Math.abs(retry.atMs - at) <= RELOAD_WINDOW_MS));
    assert.deepEqual(awayFromReloads, [], `retries more than ${RELOAD_WINDOW_MS} ms from a reload (at ${reloadsAt.join(', ')} ms)`);
  });
});
