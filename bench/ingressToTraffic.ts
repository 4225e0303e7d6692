/**
 * How long a user waits from creating an Ingress (the API call returned) to
 * its first 200 through nginx, with a real kube-apiserver, Portico as a
 * process watching it, and an echo backend in a network namespace:
 *   node --import tsx bench/ingressToTraffic.ts [--ingresses 20]
 *
 * Ingresses are created one after another, each as soon as the previous one
 * answered, as a deploy pipeline applies them. So the first one finds the
 * controller idle, and each later one arrives while the sync rate limiter
 * still holds back the next sync: with ingress-nginx's default
 * --sync-rate-limit of 0.3 (one sync per 3.3 s) that wait dominates. The run
 * is repeated with --sync-rate-limit=100, which leaves the watch, the change
 * feed's quiet period, the sync, `nginx -t` and the reload.
 */
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { startControlPlane } from '../test/support/controlPlane.js';
import { createService, startBackends, startE2eCluster } from '../test/support/e2eCluster.js';
import { timeToFirstResponse } from './support/firstResponse.js';
import { describeMachine } from './support/machine.js';
import { defaultSyncRateLimit, positiveInteger } from './support/options.js';
import { median, percentile } from './support/statistics.js';
import { figure, printTable } from './support/table.js';

const POLL_INTERVAL_MS = 10;
/** Per Ingress; far above the 3.3 s a default rate-limited sync may wait. */
const ROUTE_DEADLINE_MS = 30_000;
const SERVICE = 'echo';
const IDLE_MARGIN_MS = 500;

interface RateLimitRun {
  label: string;
  syncRateLimit: number;
  /** Milliseconds from each Ingress's creation to its first 200, in creation order. */
  latenciesMs: number[];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { ingresses: { type: 'string', default: '20' } }, strict: true });
  const count = positiveInteger('--ingresses', values.ingresses);

  process.stdout.write(`machine before: ${describeMachine()}\n`);
  const defaultRate = defaultSyncRateLimit();
  const runs: RateLimitRun[] = [
    { label: `${defaultRate} (default)`, syncRateLimit: defaultRate, latenciesMs: [] },
    { label: '100', syncRateLimit: 100, latenciesMs: [] },
  ];
  const plane = await startControlPlane();
  try {
    // The e2e fixtures find their control plane the way test/run.ts names it.
    process.env['PORTICO_TEST_ADMIN_KUBECONFIG'] = plane.adminKubeconfig;
    process.env['PORTICO_TEST_CONTROLLER_KUBECONFIG'] = plane.controllerKubeconfig;
    process.env['PORTICO_TEST_SERVER'] = plane.server;
    for (const run of runs) {
      // startE2eCluster passes --sync-rate-limit=100; a repeated flag keeps its last value.
      const cluster = await startE2eCluster('bench-ingress-to-traffic', [`--sync-rate-limit=${run.syncRateLimit}`]);
      try {
        await createService(cluster, SERVICE, await startBackends(cluster, SERVICE));
        // Portico's first pass through the sync loop (the initial list's changes, after the
        // initial sync) takes the limiter's token: let it expire, so the first Ingress finds
        // the controller idle.
        await sleep(1000 / run.syncRateLimit + IDLE_MARGIN_MS);
        for (let i = 0; i < count; i++) {
          run.latenciesMs.push(
            await timeToFirstResponse(cluster, `bench-${i}`, {
              service: SERVICE,
              pollIntervalMs: POLL_INTERVAL_MS,
              deadlineMs: ROUTE_DEADLINE_MS,
            }),
          );
          process.stderr.write(
            `--sync-rate-limit=${run.syncRateLimit}: Ingress ${i + 1}/${count} served after ${figure(run.latenciesMs.at(-1)!)} ms\n`,
          );
        }
      } finally {
        await cluster.close();
      }
    }
  } finally {
    await plane.stop();
  }

  process.stdout.write(
    `\nCreating an Ingress → its first 200 through nginx, ms (${count} Ingresses one after another, polled every ${POLL_INTERVAL_MS} ms)\n\n`,
  );
  printTable(
    ['--sync-rate-limit', 'first Ingress', 'median', 'p90', 'max'],
    runs.map(({ label, latenciesMs }) => [
      label,
      figure(latenciesMs[0]!),
      figure(median(latenciesMs)),
      figure(percentile(latenciesMs, 90)),
      figure(Math.max(...latenciesMs)),
    ]),
  );
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

await main();
