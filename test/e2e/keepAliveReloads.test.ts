// No request lost to a reload: clients that keep their connections alive
// send POSTs with a body (which no client retries on its own) while Portico
// reloads nginx, each reload caused by an Ingress change that needs one.
//
// At a reload nginx's retiring workers close their idle keep-alive
// connections at once (ngx_close_idle_connections): a POST sent on one just
// then is lost, reset before or after it arrived.
// The test counts each failure by kind and wants none.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import {
  applyIngressAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';

const HOST = 'posts.keepalive.test';
/** Clients, each with one kept-alive connection (an Agent of one socket) and one request at a time. */
const CLIENTS = 8;
const RELOADS = 10;
/** Each client's bound: far more than the reloads need (they end the load), so only a stalled test reaches it. */
const MAX_REQUESTS_PER_CLIENT = 50_000;
/** A client's pause between requests: 0..this ms at random, so that reloads find connections both busy and idle. */
const MAX_PAUSE_MS = 3;
const REQUEST_TIMEOUT_MS = 10_000;
/** POSTs sent after the last reload on one kept-alive connection. */
const AFTER_DRAIN_REQUESTS = 20;

let cluster: E2eCluster;

before(async () => {
  cluster = await startE2eCluster('keepalive');
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'posts', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'echo']) } }] }),
  );
  await eventually(async () => {
    const result = await httpGet({ port: cluster.portico.ports.http, host: HOST });
    assert.equal(result.status === 200 ? echoed(result).service : result.status, 'echo');
  });
});
after(async () => {
  await cluster?.close();
});

/** How a POST ended: its status, or the kind of network failure. */
type Outcome =
  | { readonly status: number; readonly echoedBody: boolean; readonly connectionClose: boolean; readonly socket: unknown }
  | { readonly failure: string };

/** One POST with a body on the client's kept-alive connection. */
function post(agent: Agent, body: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: cluster.portico.ports.http,
        method: 'POST',
        path: '/submit',
        headers: { host: HOST, 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) },
        agent,
        timeout: REQUEST_TIMEOUT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status,
            echoedBody: status === 200 && (JSON.parse(text) as { body?: string }).body === body,
            // The drain's token: nginx may write its own keep-alive beside it.
            connectionClose: /\bclose\b/i.test(String(response.headers.connection ?? '')),
            socket: req.socket,
          });
        });
        response.on('error', (error) => resolve({ failure: `response: ${failureKind(error)}` }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ failure: failureKind(error) }));
    req.end(body);
  });
}

/** ECONNRESET with Node's "socket hang up" is an end of the connection before any response byte; "read ECONNRESET" a reset. */
function failureKind(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (error.message === 'socket hang up') return 'EOF before a response (socket hang up)';
  return code ?? error.message;
}

interface ClientsReport {
  readonly requests: number;
  readonly ok: number;
  readonly failures: Readonly<Record<string, number>>;
  /** Responses that said `Connection: close` (the drain's). */
  readonly closing: number;
}

/** Runs the clients until `done` settles (each within its bound), then reports their outcomes. */
async function postUntil(done: Promise<unknown>): Promise<ClientsReport> {
  let stop = false;
  void done.finally(() => (stop = true));
  const failures: Record<string, number> = {};
  let requests = 0;
  let ok = 0;
  let closing = 0;
  const count = (kind: string): void => {
    failures[kind] = (failures[kind] ?? 0) + 1;
  };
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = 0; i < MAX_REQUESTS_PER_CLIENT && !stop; i++) {
          const outcome = await post(agent, `client ${client} post ${i}`);
          requests++;
          if ('connectionClose' in outcome && outcome.connectionClose) closing++;
          if ('failure' in outcome) count(outcome.failure);
          else if (outcome.status >= 500) count(`${outcome.status}`);
          else if (!outcome.echoedBody) count(`${outcome.status} without the echoed body`);
          else ok++;
          await sleep(Math.floor(Math.random() * (MAX_PAUSE_MS + 1)));
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  return { requests, ok, failures, closing };
}

/** Polls Portico's /healthz every 100 ms until `done` settles (bounded); returns the answers that were not 200. */
async function healthUntil(done: Promise<unknown>): Promise<string[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const unhealthy: string[] = [];
  for (let i = 0; i < 3_000 && !finished; i++) {
    const result = await httpGet({ port: cluster.portico.ports.healthz, path: '/healthz' }).catch((error: Error) => ({
      status: error.message,
    }));
    if (result.status !== 200) unhealthy.push(String(result.status));
    await sleep(100);
  }
  return unhealthy;
}

test(`POSTs on kept-alive connections across ${RELOADS} reloads caused by Ingress changes all succeed`, async () => {
  const reloads = (async () => {
    for (let i = 1; i <= RELOADS; i++) {
      // A new host: nginx.conf changes, and applyIngressAndReload waits for the reload and the old workers retiring.
      await applyIngressAndReload(
        cluster,
        ingress(cluster, `trigger-${i}`, { rules: [{ host: `trigger-${i}.${HOST}`, http: { paths: paths(['/', 'Prefix', 'echo']) } }] }),
      );
    }
  })();
  const [report, unhealthy] = await Promise.all([postUntil(reloads), healthUntil(reloads), reloads]);
  // The controller's own check of nginx reaches the status server: on a kept-alive connection a retiring worker closed it under the check.
  assert.deepEqual(unhealthy, [], '/healthz answered 200 throughout the reloads');
  const failed = report.requests - report.ok;
  console.log(
    `${report.requests} POSTs from ${CLIENTS} kept-alive clients across ${RELOADS} reloads: ${failed} failed ` +
      `(${(failed / RELOADS).toFixed(2)} per reload) ${JSON.stringify(report.failures)}; ${report.closing} said Connection: close`,
  );
  assert.ok(report.requests >= CLIENTS * RELOADS, `the clients sent ${report.requests} requests`);
  assert.deepEqual(report.failures, {}, 'no POST failed');
  const log = await readFile(cluster.portico.process.logPath, 'utf8');
  assert.doesNotMatch(log, /keep-alive drain failed|old nginx workers still serving/, 'every reload was drained');
  assert.ok(report.closing > 0, 'the drain asked clients to close during the reloads');
});

test('once the reloads are done the drain has ended: connections are kept alive again', async () => {
  // applyIngressAndReload waited for the old workers to exit, and the controller ends the drain before that.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < AFTER_DRAIN_REQUESTS; i++) outcomes.push(await post(agent, `after the drain ${i}`));
    const answered = outcomes.filter((outcome) => 'status' in outcome);
    assert.equal(answered.length, AFTER_DRAIN_REQUESTS, JSON.stringify(outcomes.filter((outcome) => 'failure' in outcome)));
    assert.deepEqual(
      answered.filter((outcome) => outcome.connectionClose),
      [],
      'no response says Connection: close',
    );
    assert.equal(new Set(answered.map((outcome) => outcome.socket)).size, 1, 'every POST went on the one kept-alive connection');
  } finally {
    agent.destroy();
  }
});
