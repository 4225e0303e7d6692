/**
 * Issue 4's scaling question: how long a user waits from creating an Ingress
 * to its first 200 when the cluster already holds 1, 1,000 or 5,000
 * Ingresses. With a real kube-apiserver, Portico as a process watching it
 * with the default --sync-rate-limit, and one echo backend in a network
 * namespace:
 *   node --import tsx bench/ingressAtScale.ts [--existing 1,1000,5000] [--samples 5]
 *
 * For each size, a fresh Portico and namespace. The existing Ingresses are
 * created through the API (bounded concurrency) in the synthetic cluster's
 * shapes (support/syntheticCluster.ts: 1–2 hosts, 2–3 paths, a third with
 * TLS and a Secret each, a tenth in regex mode, some annotations), all routed
 * to the one echo Service. Once the last of them is served and Portico is
 * idle again, `--samples` Ingresses are created one at a time, each after the
 * rate limiter's interval has passed and the previous sample's two reloads
 * are done (a new plain host answers before its reload), so each measures one
 * change to an otherwise idle controller. Portico's log gives each sample's breakdown:
 * the model's part of the sync, the rendering and live-state push, `nginx -t`
 * (if run) and the reload. Right after each sample's 200, while the reload
 * that adds its server usually still runs, one more Ingress is created and
 * timed the same way: the wait of a change made during a reload.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Ingress } from '@kubernetes/client-node';
import { startControlPlane } from '../test/support/controlPlane.js';
import { createService, startBackends, startE2eCluster, type E2eCluster } from '../test/support/e2eCluster.js';
import { httpGet } from '../test/support/httpGet.js';
import { readFrom } from '../test/support/porticoLog.js';
import { timeToFirstResponse } from './support/firstResponse.js';
import { describeMachine } from './support/machine.js';
import { defaultSyncRateLimit, positiveInteger } from './support/options.js';
import { median, percentile } from './support/statistics.js';
import { syntheticCluster, wildcardCertificate, type SyntheticCluster } from './support/syntheticCluster.js';
import { figure, printTable } from './support/table.js';

const SERVICE = 'echo';
const POLL_INTERVAL_MS = 10;
/** Per sample; generous, so a slow reload at 5,000 Ingresses is measured rather than cut off. */
const ROUTE_DEADLINE_MS = 600_000;
/** Until the last existing Ingress is served after all were created. */
const SETTLE_DEADLINE_MS = 1_200_000;
const CREATE_CONCURRENCY = 16;
/** Portico's start to healthy; the e2e default (30 s) is short on a loaded 2-core machine. */
const READY_TIMEOUT_MS = 180_000;
const IDLE_MARGIN_MS = 500;
/** Portico's log must stay this long without a sync starting or finishing before a sample starts. */
const QUIET_MS = 2_000;

interface Breakdown {
  modelMs: number;
  /** Rendering and the live-state push (the data plane's part before its reload). */
  liveMs: number | undefined;
  applyMs: number;
  startMs: number | undefined;
  reloadMs: number | undefined;
}

interface SizeRun {
  existing: number;
  setupMs: number;
  latenciesMs: number[];
  /** The sync that served each sample (the first of the two reloading ones in its window). */
  breakdowns: Array<Breakdown | undefined>;
  /** The Ingresses created right after each sample answered, and whether that sample's reload was still running when they answered. */
  duringReload: Array<{ latencyMs: number; beforeReloadEnded: boolean }>;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { existing: { type: 'string', default: '1,1000,5000' }, samples: { type: 'string', default: '5' } },
    strict: true,
  });
  const sizes = values.existing.split(',').map((size) => positiveInteger('--existing', size.trim()));
  const samples = positiveInteger('--samples', values.samples);
  const rate = defaultSyncRateLimit();

  process.stdout.write(`machine before: ${describeMachine()}\n`);
  const certificate = await wildcardCertificate();
  const runs: SizeRun[] = [];
  const plane = await startControlPlane();
  try {
    // The e2e fixtures find their control plane the way test/run.ts names it.
    process.env['PORTICO_TEST_ADMIN_KUBECONFIG'] = plane.adminKubeconfig;
    process.env['PORTICO_TEST_CONTROLLER_KUBECONFIG'] = plane.controllerKubeconfig;
    process.env['PORTICO_TEST_SERVER'] = plane.server;
    for (const existing of sizes) {
      // startE2eCluster passes --sync-rate-limit=100; a repeated flag keeps its last value.
      const cluster = await startE2eCluster('bench-ingress-at-scale', [`--sync-rate-limit=${rate}`], { readyTimeoutMs: READY_TIMEOUT_MS });
      try {
        runs.push(await measureSize(cluster, existing, samples, syntheticCluster(existing, certificate), rate));
      } finally {
        await cluster.close();
      }
    }
  } finally {
    await plane.stop();
  }

  process.stdout.write(
    `\nCreating an Ingress → its first 200 through nginx, ms, with N Ingresses already served (--sync-rate-limit=${rate}; ${samples} Ingresses, each created once the controller was idle; polled every ${POLL_INTERVAL_MS} ms)\n\n`,
  );
  printTable(
    ['existing Ingresses', 'median', 'p90', 'max', 'setup (create all, routed), s'],
    runs.map((run) => [
      figure(run.existing),
      figure(median(run.latenciesMs)),
      figure(percentile(run.latenciesMs, 90)),
      figure(Math.max(...run.latenciesMs)),
      figure(run.setupMs / 1000, 1),
    ]),
  );
  process.stdout.write(
    `\nThe same for an Ingress created as soon as each of those answered, while the reload adding that one's server ran (the limiter's interval included)\n\n`,
  );
  printTable(
    ['existing Ingresses', 'median', 'p90', 'max', 'served before that reload ended'],
    runs.map((run) => {
      const latencies = run.duringReload.map(({ latencyMs }) => latencyMs);
      return [
        figure(run.existing),
        figure(median(latencies)),
        figure(percentile(latencies, 90)),
        figure(Math.max(...latencies)),
        `${run.duringReload.filter(({ beforeReloadEnded }) => beforeReloadEnded).length} of ${run.duringReload.length}`,
      ];
    }),
  );
  process.stdout.write(`\nWhere the time went, ms (median over the samples of the sync that served each; from Portico's log)\n\n`);
  const medianOf = (run: SizeRun, pick: (breakdown: Breakdown) => number | undefined): string => {
    const picked = run.breakdowns.flatMap((breakdown) => (breakdown === undefined ? [] : [pick(breakdown)]));
    const known = picked.filter((value): value is number => value !== undefined);
    return known.length === 0 ? '–' : figure(median(known));
  };
  printTable(
    [
      'existing Ingresses',
      'model (sync loop)',
      'data plane apply',
      'of which live push',
      'of which nginx start (first sync)',
      'of which reload',
    ],
    runs.map((run) => [
      figure(run.existing),
      medianOf(run, (b) => b.modelMs),
      medianOf(run, (b) => b.applyMs),
      medianOf(run, (b) => b.liveMs),
      medianOf(run, (b) => b.startMs),
      medianOf(run, (b) => b.reloadMs),
    ]),
  );
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

async function measureSize(
  cluster: E2eCluster,
  existing: number,
  samples: number,
  synthetic: SyntheticCluster,
  rate: number,
): Promise<SizeRun> {
  await createService(cluster, SERVICE, await startBackends(cluster, SERVICE));
  const setupStarted = performance.now();
  await createExisting(cluster, synthetic);
  process.stderr.write(`${figure(existing)} existing: created in ${figure((performance.now() - setupStarted) / 1000, 1)} s\n`);
  await routedEventually(cluster, synthetic.ingresses.at(-1)!.spec!.rules![0]!.host!);
  const setupMs = performance.now() - setupStarted;
  process.stderr.write(`${figure(existing)} existing: all routed after ${figure(setupMs / 1000, 1)} s\n`);

  const logPath = cluster.portico.process.logPath;
  const run: SizeRun = { existing, setupMs, latenciesMs: [], breakdowns: [], duringReload: [] };
  for (let i = 0; i < samples; i++) {
    await quiet(logPath, 1000 / rate + IDLE_MARGIN_MS);
    const offset = (await stat(logPath)).size;
    run.latenciesMs.push(
      await timeToFirstResponse(cluster, `probe-${i}`, {
        service: SERVICE,
        pollIntervalMs: POLL_INTERVAL_MS,
        deadlineMs: ROUTE_DEADLINE_MS,
      }),
    );
    const latencyMs = await timeToFirstResponse(cluster, `during-reload-${i}`, {
      service: SERVICE,
      pollIntervalMs: POLL_INTERVAL_MS,
      deadlineMs: ROUTE_DEADLINE_MS,
    });
    run.duringReload.push({ latencyMs, beforeReloadEnded: !(await readFrom(logPath, offset)).includes('"msg":"nginx reloaded"') });
    // A new host answers before the reload that adds it (lua/portico/routes.lua): the next
    // sample must not start before both reloads are done, and the breakdown is the first's.
    const [sampleSync] = await reloadingSyncs(logPath, offset, 2);
    run.breakdowns.push(sampleSync);
    process.stderr.write(
      `${figure(existing)} existing: Ingress ${i + 1}/${samples} served after ${figure(run.latenciesMs.at(-1)!)} ms; the one created right after it, after ${figure(latencyMs)} ms\n`,
    );
  }
  return run;
}

/** The synthetic cluster's TLS Secrets and Ingresses in the test's namespace and class, every backend the one echo Service. */
async function createExisting(cluster: E2eCluster, synthetic: SyntheticCluster): Promise<void> {
  await forEachBounded(synthetic.secrets, async (secret) => {
    await cluster.core.createNamespacedSecret({
      namespace: cluster.namespace,
      body: { metadata: { name: secret.metadata?.name }, type: secret.type, data: secret.data },
    });
  });
  await forEachBounded(synthetic.ingresses, async (source) => {
    const body: V1Ingress = {
      metadata: { name: source.metadata?.name, annotations: source.metadata?.annotations },
      spec: {
        ...source.spec,
        ingressClassName: cluster.className,
        rules: source.spec?.rules?.map((rule) => ({
          ...rule,
          http: {
            paths: (rule.http?.paths ?? []).map((path) => ({ ...path, backend: { service: { name: SERVICE, port: { name: 'http' } } } })),
          },
        })),
      },
    };
    await cluster.networking.createNamespacedIngress({ namespace: cluster.namespace, body });
  });
}

async function forEachBounded<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < items.length; index = next++) await work(items[index]!);
  };
  await Promise.all(Array.from({ length: Math.min(CREATE_CONCURRENCY, items.length) }, worker));
}

/**
 * Polls `host` (every 100 ms: the wait may be long) until its own server
 * answers, whatever it answers: a TLS Ingress redirects plain HTTP (308) and
 * an allowlist refuses loopback (403), where an unknown host gets the
 * catch-all's 404.
 */
async function routedEventually(cluster: E2eCluster, host: string): Promise<void> {
  const deadline = performance.now() + SETTLE_DEADLINE_MS;
  while (performance.now() < deadline) {
    const status = await httpGet({ port: cluster.portico.ports.http, host, timeoutMs: 1_000 }).then(
      (result) => result.status,
      () => 0,
    );
    if (status !== 0 && status !== 404) return;
    await sleep(100);
  }
  throw new Error(`${host} not routed within ${SETTLE_DEADLINE_MS} ms\n${cluster.portico.logTail(30)}`);
}

/** Waits until Portico's log has not grown for `quietMs` (no sync under way), and at least `atLeastMs`. */
async function quiet(logPath: string, atLeastMs: number): Promise<void> {
  const started = performance.now();
  let size = (await stat(logPath)).size;
  let since = performance.now();
  while (performance.now() - since < QUIET_MS || performance.now() - started < atLeastMs || !(await syncFinished(logPath))) {
    await sleep(100);
    const now = (await stat(logPath)).size;
    if (now !== size) {
      size = now;
      since = performance.now();
    }
  }
}

/**
 * Whether the last sync that took up an Ingress has finished: a reload at
 * thousands of Ingresses logs nothing for tens of seconds, and its hosts may
 * already answer (lua/portico/routes.lua), so silence alone does not say idle.
 */
async function syncFinished(logPath: string): Promise<boolean> {
  const log = await readFrom(logPath, 0);
  return log.lastIndexOf('"msg":"configuration applied"') > log.lastIndexOf('"msg":"Scheduled for sync"');
}

/** Waits until Portico has logged `count` reloading syncs since `offset`; their timings, in order. */
async function reloadingSyncs(logPath: string, offset: number, count: number): Promise<Breakdown[]> {
  const deadline = performance.now() + ROUTE_DEADLINE_MS;
  for (;;) {
    const found = reloadBreakdowns(await readFrom(logPath, offset));
    if (found.length >= count) return found;
    if (performance.now() > deadline) throw new Error(`${found.length} of ${count} reloading syncs logged within ${ROUTE_DEADLINE_MS} ms`);
    await sleep(100);
  }
}

/** The timings of the reloading syncs in a stretch of Portico's log (pino JSON lines); nginx loads one configuration at a time. */
function reloadBreakdowns(log: string): Breakdown[] {
  let startMs: number | undefined;
  let reloadMs: number | undefined;
  const found: Breakdown[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as {
      msg?: string;
      startMs?: number;
      reloadMs?: number;
      modelMs?: number;
      liveMs?: number;
      applyMs?: number;
      outcome?: string;
    };
    if (entry.msg === 'nginx started') startMs = entry.startMs;
    else if (entry.msg === 'nginx reloaded') reloadMs = entry.reloadMs;
    else if (
      entry.msg === 'configuration applied' &&
      entry.outcome === 'reloaded' &&
      entry.modelMs !== undefined &&
      entry.applyMs !== undefined
    ) {
      found.push({ modelMs: entry.modelMs, liveMs: entry.liveMs, applyMs: entry.applyMs, startMs, reloadMs });
      startMs = reloadMs = undefined;
    }
  }
  return found;
}

await main();
