// What a reload does to long-lived exchanges, through real nginx: the workers
// it retires keep serving what they hold (a WebSocket, a streaming response)
// until it ends or `worker-shutdown-timeout` runs out, and not a moment less.
// Each reload here is caused by an Ingress change; its moment is when the old
// workers rename themselves "shutting down" (nginxWorkers.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { LookupFunction } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, WebSocket } from 'undici';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import {
  applyIngress,
  applyIngressAndReload,
  changeAndReload,
  createService,
  ingress,
  paths,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../support/e2eCluster.js';
import { isAlive, nginxWorkers } from '../support/nginxWorkers.js';

const HOST = 'drain.test';
const SETTINGS = 'drain-settings';
/** worker-shutdown-timeout: short, so that the test sees it end a retired worker. */
const SHUTDOWN_TIMEOUT_MS = 5_000;
/** How long (i) keeps talking on the retired worker: well inside the timeout. */
const EXCHANGE_AFTER_RELOAD_MS = 3_000;
/** (ii): 80 lines 50 ms apart, ~4 s: long enough for the reload to land in it, short enough to end before the timeout. */
const STREAM_LINES = 80;
const STREAM_INTERVAL_MS = 50;
const ROUND_TRIP_TIMEOUT_MS = 2_000;
/** The title poll: a reload's moment is known to about this much (plus the reads). */
const POLL_MS = 10;
/** Timers on a shared, busy CPU: how late nginx may cut a connection past the timeout. */
const LATE_SLACK_MS = 1_500;

let cluster: E2eCluster;
let triggers = 0;

// undici's WebSocket takes its Host header from the URL, so the URL names the
// test host and this lookup sends every such name to loopback.
const toLoopback = ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void): void => {
  if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}) as unknown as LookupFunction;
const loopback = new Agent({ connect: { lookup: toLoopback } });

before(async () => {
  const namespace = await createTestNamespace((await sharedControlPlane()).adminKubeconfig, 'drain');
  cluster = await startE2eCluster('drain', [`--configmap=${namespace}/${SETTINGS}`], { namespace });
  await createService(cluster, 'echo', await startBackends(cluster, 'echo'));
  // Each reload, and the old workers' retirement, waited for: (i) opens its WebSocket at once, and a worker of
  // before would 404 the host.
  await applyIngressAndReload(
    cluster,
    ingress(cluster, 'drain', { rules: [{ host: HOST, http: { paths: paths(['/', 'Prefix', 'echo']) } }] }),
  );
  await changeAndReload([cluster.portico], 'the ConfigMap', () =>
    cluster.core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: SETTINGS }, data: { 'worker-shutdown-timeout': `${SHUTDOWN_TIMEOUT_MS / 1000}s` } },
    }),
  );
  // Workers retired from now on drain for the short timeout (a retiring worker keeps the timeout it was started with).
  await eventually(async () => {
    const conf = await readFile(join(cluster.portico.prefix, 'conf', 'nginx.conf'), 'utf8');
    assert.match(conf, new RegExp(`worker_shutdown_timeout ${SHUTDOWN_TIMEOUT_MS / 1000}s;`));
    // The host from nginx.conf, not from the catch-all's pending route.
    assert.ok(conf.includes(`server_name "${HOST}"`), 'the host is in nginx.conf');
    const result = await httpGet({ port: cluster.portico.ports.http, host: HOST });
    assert.equal(result.status === 200 ? echoed(result).service : result.status, 'echo');
  });
});
after(async () => {
  await cluster?.close();
  await loopback.close();
});

interface Reload {
  /** Epoch ms when every worker that served before was seen retiring. */
  readonly retiredAt: number;
  /** From the Ingress change to that moment. */
  readonly latencyMs: number;
  readonly retired: readonly number[];
}

/** Adds an Ingress (a new host: nginx.conf changes) and waits until nginx has retired the workers that served until then. */
async function reloadByIngressChange(): Promise<Reload> {
  const serving = (await nginxWorkers(cluster.portico.prefix)).filter((worker) => !worker.retiring).map((worker) => worker.pid);
  assert.ok(serving.length > 0, 'nginx has serving workers');
  const name = `trigger-${++triggers}`;
  const requestedAt = Date.now();
  await applyIngress(
    cluster,
    ingress(cluster, name, { rules: [{ host: `${name}.${HOST}`, http: { paths: paths(['/', 'Prefix', 'echo']) } }] }),
  );
  const retiredAt = await eventually(
    async () => {
      const now = await nginxWorkers(cluster.portico.prefix);
      const stillServing = now.filter((worker) => !worker.retiring && serving.includes(worker.pid));
      assert.deepEqual(stillServing, [], 'the workers from before the change are retired');
      return Date.now();
    },
    { timeoutMs: 30_000, intervalMs: POLL_MS },
  );
  return { retiredAt, latencyMs: retiredAt - requestedAt, retired: serving };
}

interface EchoSocket {
  /** Sends `text`; resolves with the epoch ms its echo came back (rejects on a wrong echo, a close or a timeout). */
  roundTrip(text: string): Promise<number>;
  isOpen(): boolean;
  /** When and how the connection ended. */
  readonly closed: Promise<{ readonly at: number; readonly code: number }>;
  close(): void;
}

/** A WebSocket through nginx to the echo backend (undici's client: an implementation independent of the echo server's). */
async function openEchoSocket(): Promise<EchoSocket> {
  const socket = new WebSocket(`ws://${HOST}:${cluster.portico.ports.http}/socket`, { dispatcher: loopback });
  const waiting: { text: string; resolve: (at: number) => void; reject: (error: Error) => void }[] = [];
  let open = false;
  const closed = new Promise<{ at: number; code: number }>((resolve) => {
    socket.addEventListener('close', (event) => {
      open = false;
      for (const waiter of waiting.splice(0)) waiter.reject(new Error(`closed (${event.code}) before the echo of ${waiter.text}`));
      resolve({ at: Date.now(), code: event.code });
    });
  });
  socket.addEventListener('message', (event) => {
    const waiter = waiting.shift();
    if (waiter === undefined) return;
    if (event.data === waiter.text) waiter.resolve(Date.now());
    else waiter.reject(new Error(`echo ${String(event.data)} for ${waiter.text}`));
  });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => {
      open = true;
      resolve();
    });
    socket.addEventListener('error', () => reject(new Error('the WebSocket did not open')));
  });
  return {
    roundTrip: (text) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no echo of ${text} within ${ROUND_TRIP_TIMEOUT_MS} ms`)), ROUND_TRIP_TIMEOUT_MS);
        waiting.push({
          text,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        socket.send(text);
      }),
    isOpen: () => open,
    closed,
    close: () => socket.close(),
  };
}

interface StreamedLine {
  readonly text: string;
  readonly at: number;
}

/** GETs the echo backend's /stream; `lines` fills as they arrive, `done` settles when the response ends or breaks. */
function streamLines(lines: StreamedLine[]): Promise<{ status: number; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: cluster.portico.ports.http,
        path: `/stream/${STREAM_LINES}/${STREAM_INTERVAL_MS}`,
        headers: { host: HOST },
        agent: false,
        timeout: 10_000,
      },
      (response) => {
        let partial = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          const parts = (partial + chunk).split('\n');
          partial = parts.pop() ?? '';
          for (const text of parts) lines.push({ text, at: Date.now() });
        });
        response.on('close', () => resolve({ status: response.statusCode ?? 0, complete: response.complete && partial === '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('the stream stalled for 10 s')));
    req.on('error', reject);
    req.end();
  });
}

test('(i) a websocket keeps exchanging messages across a reload caused by an Ingress change', async () => {
  const socket = await openEchoSocket();
  let reload: Reload;
  let exchanged = 0;
  try {
    for (let i = 0; i < 5; i++) await socket.roundTrip(`before ${i}`);
    reload = await reloadByIngressChange();
    while (Date.now() < reload.retiredAt + EXCHANGE_AFTER_RELOAD_MS) {
      await socket.roundTrip(`after ${exchanged++}`);
      await sleep(50);
    }
    assert.ok(socket.isOpen(), 'the websocket is still open');
  } finally {
    socket.close();
  }
  console.log(
    `(i) reload ${reload.latencyMs} ms after the Ingress change; ${exchanged} messages echoed in the ${EXCHANGE_AFTER_RELOAD_MS} ms after it`,
  );
  assert.ok(exchanged >= 10, `${exchanged} messages after the reload`);
  // It was the websocket that kept a retired worker alive: closed, the worker goes at once, long before the timeout.
  const closedAt = Date.now();
  await eventually(async () => assert.deepEqual(await alive(reload.retired), [], 'retired workers still running'), {
    timeoutMs: SHUTDOWN_TIMEOUT_MS,
    intervalMs: POLL_MS,
  });
  console.log(`(i) the retired worker ended ${Date.now() - closedAt} ms after the client closed the websocket`);
});

test('(ii) a streaming response in flight at a reload completes intact', async () => {
  const lines: StreamedLine[] = [];
  const done = streamLines(lines);
  await eventually(() => assert.ok(lines.length >= 2, `${lines.length} lines so far`), { timeoutMs: 10_000, intervalMs: POLL_MS });
  const reload = await reloadByIngressChange();
  const { status, complete } = await done;
  const before = lines.filter((line) => line.at <= reload.retiredAt).length;
  console.log(
    `(ii) reload ${reload.latencyMs} ms after the Ingress change, at line ${before} of ${STREAM_LINES}; ${lines.length} lines, complete: ${complete}`,
  );
  assert.equal(status, 200);
  assert.ok(complete, 'the response ended properly (last chunk received)');
  assert.deepEqual(
    lines.map((line) => line.text),
    Array.from({ length: STREAM_LINES }, (_, i) => `echo-1 ${i + 1}/${STREAM_LINES}`),
  );
  assert.ok(before >= 2 && before < STREAM_LINES, `the reload came while the response streamed (after line ${before} of ${STREAM_LINES})`);
});

test('(iii) worker-shutdown-timeout ends a retired worker, and the websocket it holds, after that time and not before', async () => {
  const socket = await openEchoSocket();
  await socket.roundTrip('hello');
  const reload = await reloadByIngressChange();
  let lastEcho = reload.retiredAt;
  let exchanged = 0;
  // Talk until nginx cuts the connection (bounded: the timeout plus slack).
  try {
    while (socket.isOpen() && Date.now() < reload.retiredAt + SHUTDOWN_TIMEOUT_MS + LATE_SLACK_MS) {
      lastEcho = await socket.roundTrip(`message ${exchanged++}`);
      await sleep(50);
    }
  } catch (error) {
    if (socket.isOpen()) throw error;
  } finally {
    socket.close();
  }
  const closed = await socket.closed;
  await eventually(async () => assert.deepEqual(await alive(reload.retired), [], 'retired workers still running'), {
    timeoutMs: 5_000,
    intervalMs: POLL_MS,
  });
  const endedAt = Date.now();
  const closedAfter = closed.at - reload.retiredAt;
  console.log(
    `(iii) worker-shutdown-timeout ${SHUTDOWN_TIMEOUT_MS} ms: reload ${reload.latencyMs} ms after the Ingress change; websocket closed ` +
      `${closedAfter} ms after it (code ${closed.code}), last echo at ${lastEcho - reload.retiredAt} ms (${exchanged} messages), ` +
      `retired workers gone by ${endedAt - reload.retiredAt} ms`,
  );
  assert.equal(closed.code, 1006, 'cut without a close frame: nginx closed the connection');
  // retiredAt is when polling saw the reload, up to a few hundred ms late on a loaded machine, so the cut
  // may look early by that much; a cut at the reload itself would still show as about 0 ms.
  assert.ok(closedAfter >= SHUTDOWN_TIMEOUT_MS - 1_000, `not before the timeout: closed ${closedAfter} ms after the reload`);
  assert.ok(closedAfter <= SHUTDOWN_TIMEOUT_MS + LATE_SLACK_MS, `about at the timeout: closed ${closedAfter} ms after the reload`);
  assert.ok(lastEcho - reload.retiredAt >= SHUTDOWN_TIMEOUT_MS - 1_000, 'messages were echoed until shortly before the cut');
});

async function alive(pids: readonly number[]): Promise<number[]> {
  const running = await Promise.all(pids.map(async (pid) => ((await isAlive(pid)) ? pid : undefined)));
  return running.filter((pid): pid is number => pid !== undefined);
}
