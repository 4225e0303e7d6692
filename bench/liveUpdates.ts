/**
 * What the Lua data plane buys: endpoint changes reach traffic without a
 * reload, and a burst of Ingress changes costs few reloads. With a real
 * kube-apiserver, Portico as a process watching it, and echo backends in a
 * network namespace:
 *   node --import tsx bench/liveUpdates.ts [--switches 20] [--burst 100]
 *
 * 1. One Service's EndpointSlice is switched between two backends (A only →
 *    B only → A only ...). For each switch: the time from the API call
 *    returning to the first request answered by the new backend, polled every
 *    5 ms. Portico's log is read for reloads between the first switch and the
 *    last one served: the Lua balancer should take endpoints without one.
 * 2. `--burst` Ingresses (one host each) are created at once (Promise.all);
 *    the time until every host is served, and the reloads Portico logged for
 *    them, with --sync-rate-limit=100 (the e2e harness's value) and with the
 *    default (0.3).
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { startControlPlane } from '../test/support/controlPlane.js';
import {
  createService,
  ingress,
  paths,
  setEndpoints,
  startBackends,
  startE2eCluster,
  type E2eCluster,
} from '../test/support/e2eCluster.js';
import { echoed, httpGet } from '../test/support/httpGet.js';
import type { EchoBackend } from '../test/support/testNetwork.js';
import { describeMachine } from './support/machine.js';
import { defaultSyncRateLimit, positiveInteger } from './support/options.js';
import { appliedConfigurations, readFrom } from '../test/support/porticoLog.js';
import { pollHost } from './support/pollHost.js';
import { median, percentile } from './support/statistics.js';
import { figure, printTable } from './support/table.js';

const SWITCH_POLL_MS = 5;
const SWITCH_DEADLINE_MS = 10_000;
const REQUEST_TIMEOUT_MS = 1_000;
/** Until the first Ingress of part 1 is served. */
const ROUTE_DEADLINE_MS = 30_000;
const BURST_DEADLINE_MS = 60_000;
const BURST_POLL_MS = 50;
/** Before the switches open their log window, and after the last switch or the burst is served, so trailing syncs reach the log. */
const SETTLE_MS = 1_500;
const IDLE_MARGIN_MS = 500;

interface SwitchRun {
  latenciesMs: number[];
  reloads: number;
  applied: number;
}

interface BurstRun {
  label: string;
  syncRateLimit: number;
  createdMs: number;
  servedMs: number;
  reloads: number;
  applied: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { switches: { type: 'string', default: '20' }, burst: { type: 'string', default: '100' } },
    strict: true,
  });
  const switches = positiveInteger('--switches', values.switches);
  const burst = positiveInteger('--burst', values.burst);

  process.stdout.write(`machine before: ${describeMachine()}\n`);
  const defaultRate = defaultSyncRateLimit();
  let switchRun: SwitchRun;
  const bursts: BurstRun[] = [];
  const plane = await startControlPlane();
  try {
    // The e2e fixtures find their control plane the way test/run.ts names it.
    process.env['PORTICO_TEST_ADMIN_KUBECONFIG'] = plane.adminKubeconfig;
    process.env['PORTICO_TEST_CONTROLLER_KUBECONFIG'] = plane.controllerKubeconfig;
    process.env['PORTICO_TEST_SERVER'] = plane.server;

    const cluster = await startE2eCluster('bench-live-endpoints');
    try {
      switchRun = await endpointSwitches(cluster, switches);
    } finally {
      await cluster.close();
    }

    for (const [label, syncRateLimit] of [
      ['100', 100],
      [`${defaultRate} (default)`, defaultRate],
    ] as const) {
      // startE2eCluster passes --sync-rate-limit=100; a repeated flag keeps its last value.
      const burstCluster = await startE2eCluster('bench-live-burst', [`--sync-rate-limit=${syncRateLimit}`]);
      try {
        bursts.push({ label, syncRateLimit, ...(await ingressBurst(burstCluster, burst, syncRateLimit)) });
      } finally {
        await burstCluster.close();
      }
    }
  } finally {
    await plane.stop();
  }

  const { latenciesMs } = switchRun;
  process.stdout.write(
    `\nEndpointSlice switched between two backends → first answer from the new one, ms ` +
      `(${switches} switches, polled every ${SWITCH_POLL_MS} ms; with ${switches} samples p99 is the maximum)\n\n`,
  );
  printTable(
    ['switches', 'median', 'p90', 'p99', 'max', 'nginx reloads', "'configuration applied' lines"],
    [
      [
        String(latenciesMs.length),
        figure(median(latenciesMs)),
        figure(percentile(latenciesMs, 90)),
        figure(percentile(latenciesMs, 99)),
        figure(Math.max(...latenciesMs)),
        String(switchRun.reloads),
        String(switchRun.applied),
      ],
    ],
  );

  process.stdout.write(`\n${burst} Ingresses created at once (Promise.all) → every host served, and the reloads it took\n\n`);
  printTable(
    ['--sync-rate-limit', 'all created, ms', 'all served, ms', 'nginx reloads', "'configuration applied' lines"],
    bursts.map((run) => [run.label, figure(run.createdMs), figure(run.servedMs), String(run.reloads), String(run.applied)]),
  );
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

async function endpointSwitches(cluster: E2eCluster, switches: number): Promise<SwitchRun> {
  const service = 'live';
  const host = 'live.example';
  const [a, b] = (await startBackends(cluster, service, 2)) as [EchoBackend, EchoBackend];
  const instances = new Map([
    [a.address, `${service}-1`],
    [b.address, `${service}-2`],
  ]);
  await createService(cluster, service, [a]);
  await cluster.networking.createNamespacedIngress({
    namespace: cluster.namespace,
    body: ingress(cluster, service, { rules: [{ host, http: { paths: paths(['/', 'Prefix', service]) } }] }),
  });
  await firstAnswerFrom(cluster, host, `${service}-1`, performance.now() + ROUTE_DEADLINE_MS);
  // The set-up's last syncs (the Service's, the EndpointSlice's) may still be under way: let them land before the window opens.
  await sleep(SETTLE_MS);

  const logPath = cluster.portico.process.logPath;
  const logOffset = (await stat(logPath)).size;
  const latenciesMs: number[] = [];
  for (let i = 0; i < switches; i++) {
    const target = i % 2 === 0 ? b : a;
    await setEndpoints(cluster, service, [target.address]);
    const switched = performance.now();
    await firstAnswerFrom(cluster, host, instances.get(target.address)!, switched + SWITCH_DEADLINE_MS);
    latenciesMs.push(performance.now() - switched);
    process.stderr.write(`switch ${i + 1}/${switches} → ${instances.get(target.address)!}: ${figure(latenciesMs.at(-1)!, 1)} ms\n`);
  }
  await sleep(SETTLE_MS);
  return { latenciesMs, ...countApplied(await readFrom(logPath, logOffset)) };
}

/** Polls until the host answers from `instance`; throws at the deadline (a performance.now() time). */
async function firstAnswerFrom(cluster: E2eCluster, host: string, instance: string, deadline: number): Promise<void> {
  await pollHost(cluster, host, {
    rejects: (result) => {
      if (result.status !== 200) return `HTTP ${result.status}`;
      const answered = echoed(result).instance;
      return answered === instance ? undefined : `answered by ${answered}`;
    },
    deadline,
    intervalMs: SWITCH_POLL_MS,
    awaited: `an answer from ${instance}`,
  });
}

async function ingressBurst(cluster: E2eCluster, count: number, syncRateLimit: number): Promise<Omit<BurstRun, 'label' | 'syncRateLimit'>> {
  const service = 'burst';
  await createService(cluster, service, await startBackends(cluster, service));
  // Portico's first pass through the sync loop takes the limiter's token: let it expire.
  const limiterIntervalMs = 1000 / syncRateLimit;
  await sleep(limiterIntervalMs + IDLE_MARGIN_MS);
  const logPath = cluster.portico.process.logPath;
  const logOffset = (await stat(logPath)).size;

  const hosts = Array.from({ length: count }, (_, i) => `burst-${i}.example`);
  const started = performance.now();
  await Promise.all(
    hosts.map((host, i) =>
      cluster.networking.createNamespacedIngress({
        namespace: cluster.namespace,
        body: ingress(cluster, `burst-${i}`, { rules: [{ host, http: { paths: paths(['/', 'Prefix', service]) } }] }),
      }),
    ),
  );
  const createdMs = performance.now() - started;

  const waiting = new Set(hosts);
  const deadline = started + BURST_DEADLINE_MS;
  let servedMs = -1;
  while (performance.now() < deadline) {
    for (const host of [...waiting]) {
      const result = await httpGet({ port: cluster.portico.ports.http, host, timeoutMs: REQUEST_TIMEOUT_MS }).catch(() => undefined);
      if (result?.status === 200 && echoed(result).service === service) waiting.delete(host);
    }
    if (waiting.size === 0) {
      servedMs = performance.now() - started;
      break;
    }
    await sleep(BURST_POLL_MS);
  }
  if (servedMs < 0)
    throw new Error(`${waiting.size} of ${count} hosts not served within ${BURST_DEADLINE_MS} ms\n${cluster.portico.logTail(30)}`);
  process.stderr.write(
    `--sync-rate-limit=${syncRateLimit}: ${count} Ingresses created in ${figure(createdMs)} ms, all served after ${figure(servedMs)} ms\n`,
  );
  // A sync the limiter still holds back would land after its interval.
  await sleep(Math.max(SETTLE_MS, limiterIntervalMs + IDLE_MARGIN_MS));
  return { createdMs, servedMs, ...countApplied(await readFrom(logPath, logOffset)) };
}

/** Portico's 'configuration applied' log lines, and how many of them reloaded nginx. */
function countApplied(log: string): { reloads: number; applied: number } {
  const { lines, reloads } = appliedConfigurations(log);
  return { reloads, applied: lines.length };
}

await main();
