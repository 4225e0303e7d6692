/**
 * Issues 4 and 18: how long a user waits from an Ingress change to its first
 * right answer when the cluster already holds 1, 1,000, 5,000 or 10,000
 * Ingresses. With a real kube-apiserver, Portico as a process watching it
 * (--sync-rate-limit: Portico's default unless --rate), and two echo backends
 * in a network namespace:
 *   node --import tsx bench/ingressAtScale.ts [--existing 1,1000,5000] [--samples 3] [--rate 100]
 *
 * For each size, a fresh Portico and namespace. The existing Ingresses are
 * created through the API (bounded concurrency) in the synthetic cluster's
 * shapes (support/syntheticCluster.ts: 1–2 hosts, 2–3 paths, a third with
 * TLS and a Secret each, a tenth in regex mode, some annotations), all routed
 * to one echo Service, with the objects the changes edit. Once the last of
 * them is served and Portico is idle again, each kind of change
 * (support/ingressChanges.ts: new hosts plain, TLS and regex, a new path, a
 * backend edit, an annotation, a deletion) is made `--samples` times, one at a
 * time, each once the rate limiter's interval has passed and the previous
 * change's sync (and its reload) is done, so each measures one change to an
 * otherwise idle controller: the time from the API write's return to the
 * first right answer (polled every 10 ms), and the time of the reload the
 * change caused (SIGHUP until the new workers serve and the old ones have
 * retired, from Portico's log): an answer well before it was live.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Ingress } from '@kubernetes/client-node';
import { startControlPlane } from '../test/support/controlPlane.js';
import { createService, startBackends, startE2eCluster, type E2eCluster } from '../test/support/e2eCluster.js';
import { httpGet } from '../test/support/httpGet.js';
import { readFrom } from '../test/support/porticoLog.js';
import type { TestCertificate } from '../test/support/tlsSecrets.js';
import { CHANGE_KINDS, SERVICES, type ChangeKind } from './support/ingressChanges.js';
import { describeMachine } from './support/machine.js';
import { defaultSyncRateLimit, positiveInteger } from './support/options.js';
import { pollHost } from './support/pollHost.js';
import { median } from './support/statistics.js';
import { syntheticCluster, wildcardCertificate, type SyntheticCluster } from './support/syntheticCluster.js';
import { figure, printTable } from './support/table.js';

const POLL_INTERVAL_MS = 10;
/** Per sample; generous, so a slow reload at 10,000 Ingresses is measured rather than cut off. */
const ROUTE_DEADLINE_MS = 600_000;
/** Until the last existing Ingress is served after all were created. */
const SETTLE_DEADLINE_MS = 1_200_000;
const CREATE_CONCURRENCY = 16;
/** Portico's start to healthy; the e2e default (30 s) is short on a loaded 2-core machine. */
const READY_TIMEOUT_MS = 180_000;
const IDLE_MARGIN_MS = 500;
/** Portico's log must stay this long without a sync starting or finishing before a sample starts. */
const QUIET_MS = 2_000;

interface Sample {
  latencyMs: number;
  /** SIGHUP until the old workers have retired, of the change's reload (undefined: none logged). */
  reloadMs: number | undefined;
}

interface SizeRun {
  existing: number;
  setupMs: number;
  samples: Map<string, Sample[]>;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      existing: { type: 'string', default: '1,1000,5000' },
      samples: { type: 'string', default: '3' },
      rate: { type: 'string' },
    },
    strict: true,
  });
  const sizes = values.existing.split(',').map((size) => positiveInteger('--existing', size.trim()));
  const samples = positiveInteger('--samples', values.samples);
  const rate = values.rate === undefined ? defaultSyncRateLimit() : positiveInteger('--rate', values.rate);

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
        runs.push(await measureSize(cluster, existing, samples, syntheticCluster(existing, certificate), certificate, rate));
      } finally {
        await cluster.close();
      }
    }
  } finally {
    await plane.stop();
  }

  process.stdout.write(
    `\nAn Ingress change → its first right answer through nginx, ms, with N Ingresses already served (--sync-rate-limit=${rate}; ${samples} changes of each kind, each made once the controller was idle; polled every ${POLL_INTERVAL_MS} ms).\n\n`,
  );
  printTable(
    ['existing Ingresses', 'change', 'median', 'max', 'its reload, median ms', 'setup (create all, routed), s'],
    runs.flatMap((run) =>
      [...run.samples].map(([kind, taken]) => {
        const reloads = taken.flatMap(({ reloadMs }) => (reloadMs === undefined ? [] : [reloadMs]));
        return [
          figure(run.existing),
          kind,
          figure(median(taken.map(({ latencyMs }) => latencyMs))),
          figure(Math.max(...taken.map(({ latencyMs }) => latencyMs))),
          reloads.length === 0 ? '–' : figure(median(reloads)),
          figure(run.setupMs / 1000, 1),
        ];
      }),
    ),
  );
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

async function measureSize(
  cluster: E2eCluster,
  existing: number,
  samples: number,
  synthetic: SyntheticCluster,
  certificate: TestCertificate,
  rate: number,
): Promise<SizeRun> {
  for (const service of SERVICES) await createService(cluster, service, await startBackends(cluster, service));
  const setupStarted = performance.now();
  for (const kind of CHANGE_KINDS) await kind.prepare(cluster, samples);
  await createExisting(cluster, synthetic);
  process.stderr.write(`${figure(existing)} existing: created in ${figure((performance.now() - setupStarted) / 1000, 1)} s\n`);
  await routedEventually(cluster, synthetic.ingresses.at(-1)!.spec!.rules![0]!.host!);
  const setupMs = performance.now() - setupStarted;
  process.stderr.write(`${figure(existing)} existing: all routed after ${figure(setupMs / 1000, 1)} s\n`);

  const run: SizeRun = { existing, setupMs, samples: new Map() };
  for (const kind of CHANGE_KINDS) {
    const taken: Sample[] = [];
    for (let i = 0; i < samples; i++) {
      taken.push(await measureChange(cluster, kind, i, certificate, rate));
      const { latencyMs, reloadMs } = taken.at(-1)!;
      process.stderr.write(
        `${figure(existing)} existing: ${kind.name} ${i + 1}/${samples} answered after ${figure(latencyMs)} ms (its reload ${reloadMs === undefined ? '–' : figure(reloadMs)} ms)\n`,
      );
    }
    run.samples.set(kind.name, taken);
  }
  return run;
}

/** One change to an idle controller, timed to its first right answer; then waits for its sync to finish. */
async function measureChange(
  cluster: E2eCluster,
  kind: ChangeKind,
  sample: number,
  certificate: TestCertificate,
  rate: number,
): Promise<Sample> {
  const logPath = cluster.portico.process.logPath;
  await quiet(logPath, 1000 / rate + IDLE_MARGIN_MS);
  const offset = (await stat(logPath)).size;
  const probe = await kind.change(cluster, sample, certificate);
  const written = performance.now();
  await pollHost(cluster, probe.host, {
    path: probe.path,
    https: probe.https,
    rejects: probe.rejects,
    deadline: written + ROUTE_DEADLINE_MS,
    intervalMs: POLL_INTERVAL_MS,
    awaited: `the answer to "${kind.name}"`,
  });
  const latencyMs = performance.now() - written;
  return { latencyMs, reloadMs: await changeReload(logPath, offset) };
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
            paths: (rule.http?.paths ?? []).map((path) => ({
              ...path,
              backend: { service: { name: SERVICES[0], port: { name: 'http' } } },
            })),
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

/**
 * Waits until the sync that reloaded for the change (logged after `offset`)
 * is applied (every kind changes nginx.conf); that reload's time. A sync
 * before it (a TLS host's Secret, written first) reloads nothing. Which
 * workers gave the answer the log cannot say (its reload line follows the
 * keep-alive drain's end): an answer well before the reload's time was live.
 */
async function changeReload(logPath: string, offset: number): Promise<number | undefined> {
  const deadline = performance.now() + ROUTE_DEADLINE_MS;
  for (;;) {
    let reloadMs: number | undefined;
    for (const line of (await readFrom(logPath, offset)).split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as { msg?: string; reloadMs?: number; outcome?: string };
      if (entry.msg === 'nginx reloaded') reloadMs = entry.reloadMs;
      else if (entry.msg === 'configuration applied' && entry.outcome === 'reloaded') return reloadMs;
    }
    if (performance.now() > deadline) throw new Error(`no sync applied within ${ROUTE_DEADLINE_MS} ms`);
    await sleep(100);
  }
}

await main();
