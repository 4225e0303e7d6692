// Health and shutdown of a real Portico process with real nginx and backends:
// /healthz follows nginx's life, and SIGTERM goes through ingress-nginx's
// sequence (healthz fails at once while traffic is still served for the
// grace period; nginx quits gracefully, so a slow request in flight
// finishes; the process exits the post grace period after nginx stopped).
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { prefixLayout } from '../../src/dataplane/nginx/process/prefixLayout.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet, type HttpResult } from '../support/httpGet.js';
import { isRunning } from '../support/isRunning.js';
import {
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';

const HOST = 'slow.shutdown.test';
const GRACE_S = 3;
const POST_GRACE_S = 2;
const SLOW_REQUEST_MS = 5_000;

let cluster: E2eCluster;

before(async () => {
  cluster = await startE2eCluster('shutdown', [`--shutdown-grace-period=${GRACE_S}`, `--post-shutdown-grace-period=${POST_GRACE_S}`]);
  await createService(cluster, 'slow', await startBackends(cluster, 'slow'));
  // The tests kill and stop nginx: after the reload that adds the host, not during it.
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'slow', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'slow']) } }] }),
  );
  await eventually(async () => assert.equal((await request('/')).status, 200), { timeoutMs: 15_000 });
});
after(() => cluster?.close());

function request(path: string, timeoutMs = 5_000): Promise<HttpResult> {
  return httpGet({ port: cluster.portico.ports.http, host: HOST, path, timeoutMs });
}

async function healthz(): Promise<number> {
  return (await httpGet({ port: cluster.portico.ports.healthz, path: '/healthz', timeoutMs: 2_000 })).status;
}

async function nginxMasterPid(): Promise<number> {
  return Number((await readFile(prefixLayout(cluster.portico.prefix).pidFile, 'utf8')).trim());
}

/** Requests nginx is answering now (its stub_status "Writing", less the stub_status request itself). */
async function requestsInProgress(): Promise<number> {
  const page = await httpGet({ port: cluster.portico.ports.status, path: '/nginx_status', timeoutMs: 2_000 });
  return Number(/Writing: (\d+)/.exec(page.body)?.[1] ?? 0) - 1;
}

/** Polls until `condition` holds, at most `timeoutMs`; returns when it first held. */
async function when(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return Date.now();
    await sleep(20);
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms\n${cluster.portico.logTail(30)}`);
}

test('healthz fails while the nginx master is dead, and recovers once it is restarted with its live state', async () => {
  assert.equal(await healthz(), 200);
  const killed = await nginxMasterPid();
  process.kill(killed, 'SIGKILL');
  const statuses: number[] = [];
  await when(async () => statuses.push(await healthz()) > 0 && statuses.at(-1) === 500, 5_000, 'healthz 500');
  await when(async () => statuses.push(await healthz()) > 0 && statuses.at(-1) === 200, 20_000, 'healthz 200 again');
  const restarted = await nginxMasterPid();
  assert.notEqual(restarted, killed, 'a new nginx master serves');
  assert.equal(echoed(await request('/')).service, 'slow', 'traffic flows again (live state restored)');
});

test('SIGTERM: healthz fails at once, traffic is served for the grace period, an in-flight request finishes, then the process exits after the post grace period', async () => {
  const portico = cluster.portico.process;
  const master = await nginxMasterPid();
  const inFlight = request(`/delay/${SLOW_REQUEST_MS}`, SLOW_REQUEST_MS + 10_000);
  await when(async () => (await requestsInProgress()) >= 1, 10_000, 'the slow request in progress in nginx');
  const signalledAt = Date.now();
  process.kill(portico.pid, 'SIGTERM');

  // Grace period: unhealthy, yet new requests are still served.
  await when(async () => (await healthz()) === 500, 1_000, 'healthz 500 after SIGTERM');
  assert.equal(echoed(await request('/')).service, 'slow', 'served during the grace period');
  await sleep(GRACE_S * 1000 - (Date.now() - signalledAt) - 500);
  assert.equal((await request('/')).status, 200, 'still served just before the grace period ends');
  assert.equal(isRunning(master), true);

  // nginx quits: new connections are refused while the slow request is still under way.
  const refusedAt = await when(
    () =>
      request('/', 1_000).then(
        () => false,
        (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED',
      ),
    5_000,
    'connections refused',
  );
  assert.ok(
    refusedAt - signalledAt >= GRACE_S * 1000 - 100,
    `refused ${refusedAt - signalledAt} ms after SIGTERM, before the grace period ended`,
  );
  const slow = await inFlight;
  assert.equal(slow.status, 200, 'the request in flight at the quit completed');
  assert.equal(echoed(slow).path, `/delay/${SLOW_REQUEST_MS}`);

  const masterGoneAt = await when(() => !isRunning(master), 10_000, 'nginx master exit');
  // Polled: the child is unref'd, so awaiting its exit alone would not keep this process alive.
  const exitedAt = await when(() => portico.hasExited(), POST_GRACE_S * 1000 + 10_000, 'portico exit');
  assert.deepEqual(await portico.exited, { code: 0, signal: null });
  const postGraceMs = exitedAt - masterGoneAt;
  assert.ok(
    postGraceMs >= POST_GRACE_S * 1000 - 200,
    `exited ${postGraceMs} ms after nginx stopped: the post grace period was not waited out`,
  );
  assert.ok(
    postGraceMs <= POST_GRACE_S * 1000 + 3_000,
    `exited ${postGraceMs} ms after nginx stopped: much later than the post grace period`,
  );
});
