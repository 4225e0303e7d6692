/**
 * Issue 18's bounded soak: Portico in manifest mode on the synthetic cluster
 * (support/syntheticManifests.ts), then rounds of mixed changes under a steady
 * bounded load, until `--rounds` or `--minutes`, whichever comes first. Each
 * round writes, at once: an edit of one Ingress (an annotation that forces a
 * reload, and a path added in place of the previous round's), a replacement of
 * another one's EndpointSlice addresses by other live backends, and a new
 * certificate in a third one's TLS Secret; then it waits (each within
 * `--change-bound` seconds) until each is served. The load (`--rate` GETs per
 * second, round-robin) goes to stable hosts (plain, TLS, regex mode, annotated)
 * and to the three changing ones, with echo backends in a network namespace:
 *   node --import tsx bench/soak.ts [--ingresses 10000] [--minutes 30] [--rounds N] [--rate 20] [--change-bound 120]
 *
 * What counts as a failure (soakTargets.ts): a connection error (after one
 * retry of a GET whose reused connection closed before any answer byte, counted
 * apart), a 5xx, any other non-200 or an answer not from the host's backends,
 * a 404 for a path that existed before the change and still exists after it
 * (every path of the stable hosts, and of the changing ones, whose `/` takes
 * any path), the round's new path answered by `/`'s backend after it had been
 * served by its own and before the next round removed it, and a change not
 * served within the bound. The new path answered by `/` before it was first
 * served by its own backend is the change not applied yet: not a failure.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { eventually } from '../test/support/eventually.js';
import { httpGet } from '../test/support/httpGet.js';
import { readFrom } from '../test/support/porticoLog.js';
import { startPortico } from '../test/support/porticoProcess.js';
import { createTestNetwork } from '../test/support/testNetwork.js';
import { selfSignedCertificate } from '../test/support/tlsSecrets.js';
import { describeMachine } from './support/machine.js';
import { nginxMemory, type NginxMemory } from './support/nginxMemory.js';
import { positiveInteger } from './support/options.js';
import { summarizeReloads } from './support/reloadLog.js';
import { startHealthProbe } from './support/healthProbe.js';
import { soakTargets, type SoakBackend, type SoakBackends } from './support/soakTargets.js';
import { echoInstance, OK, PENDING, startSoakLoad, type SoakLoadReport } from './support/soakLoad.js';
import { pickSoakSample } from './support/soakManifests.js';
import { median } from './support/statistics.js';
import { writeSyntheticManifests } from './support/syntheticManifests.js';
import { figure, printTable } from './support/table.js';

const { values } = parseArgs({
  options: {
    ingresses: { type: 'string', default: '10000' },
    minutes: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '100000' },
    rate: { type: 'string', default: '20' },
    'change-bound': { type: 'string', default: '120' },
  },
  strict: true,
});
const ingresses = positiveInteger('--ingresses', values.ingresses);
const minutes = positiveInteger('--minutes', values.minutes);
const maxRounds = positiveInteger('--rounds', values.rounds);
const rate = positiveInteger('--rate', values.rate);
const changeBoundMs = positiveInteger('--change-bound', values['change-bound']) * 1000;

/** The first start at 10,000 Ingresses: writing and reading the folder, the first sync, nginx loading 26 MiB (about 40 s quiet). */
const START_TIMEOUT_MS = 600_000;
/** A settled nginx (old workers gone) after a reload; a retiring worker exits once its connections have. */
const SETTLE_TIMEOUT_MS = 300_000;
const REQUEST_TIMEOUT_MS = 10_000;
const PROBE_INTERVAL_MS = 100;
/** The echo backends listen where the synthetic EndpointSlices point (targetPort 8080). */
const BACKEND_PORT = 8080;

/** A process's resident set, MiB, from /proc/<pid>/status. */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
}

/** The controller's V8 heap in use, MiB, from its /metrics (prom-client's default metrics): what RSS holds beyond the GC's slack. */
async function heapUsedMiB(healthzPort: number): Promise<number> {
  const { body } = await httpGet({ port: healthzPort, path: '/metrics', timeoutMs: REQUEST_TIMEOUT_MS * 3 });
  return Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(body)?.[1] ?? NaN) / 1024 / 1024;
}

/** Polls `answered` (one fresh-connection request, true once the change shows) until true or the bound; the ms it took, or undefined. */
async function timeUntil(writtenAt: number, answered: () => Promise<boolean>): Promise<number | undefined> {
  while (performance.now() - writtenAt < changeBoundMs) {
    if (await answered().catch(() => false)) return performance.now() - writtenAt;
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
  }
  return undefined;
}

const network = await createTestNetwork();
const dir = await mkdtemp(join(tmpdir(), 'portico-bench-soak-'));
const started = performance.now();
let report: SoakLoadReport;
let rounds = 0;
/** From starting Portico until every sample host answered as it should (issue 18: start to serving). */
let servedAfterStartMs = 0;
const latencies = { edit: [] as number[], endpoints: [] as number[], certificate: [] as number[] };
const missed = { edit: 0, endpoints: 0, certificate: 0 };
interface Memory {
  readonly controller: number;
  readonly heap: number;
  readonly nginx: NginxMemory;
}
/** At start, after the first round, at the end. */
let memory: { controller: [number, number, number]; heap: [number, number, number]; nginx: [NginxMemory, NginxMemory, NginxMemory] };
let afterFirstRound: Memory | undefined;
let health: { probes: number; failed: number; maxMs: number };
let reloadSummary: ReturnType<typeof summarizeReloads>;
try {
  // Stopped with the network.
  const echo = async (instance: string): Promise<SoakBackend> => {
    const address = await network.addAddress();
    await network.startEcho({ service: 'soak', instance, address, port: BACKEND_PORT });
    return { instance, address };
  };
  const backends: SoakBackends = {
    stable: await Promise.all(['stable-1', 'stable-2'].map(echo)),
    round: [await echo('round-1')],
    churn: [await Promise.all(['churn-a1', 'churn-a2'].map(echo)), await Promise.all(['churn-b1', 'churn-b2'].map(echo))],
  };
  const { texts } = await writeSyntheticManifests(dir, ingresses);
  const sample = pickSoakSample(dir, texts);
  for (const [role, file] of Object.entries(sample)) {
    file.setEndpoints((role === 'churned' ? backends.churn[0] : backends.stable).map((backend) => backend.address));
    if (role === 'edited') file.setEndpoints([backends.round[0]!.address], 'api');
    await file.write();
  }
  const targets = soakTargets(sample, backends);

  const startedPortico = performance.now();
  const portico = await startPortico([`--manifests=${dir}`], { readyTimeoutMs: START_TIMEOUT_MS });
  try {
    // Every target answers as it should before anything is measured: the first sync is served.
    await eventually(
      async () => {
        for (const target of targets.all) {
          const port = target.https ? portico.ports.https : portico.ports.http;
          const path = target.path();
          const result = await httpGet({ port, host: target.host, path, https: target.https, timeoutMs: REQUEST_TIMEOUT_MS });
          const answer = { status: result.status, instance: echoInstance(result.body) };
          const verdict = target.judge(answer, path, performance.now());
          if (verdict !== OK && verdict !== PENDING) throw new Error(`${target.name}: ${verdict} (HTTP ${result.status})`);
        }
      },
      { timeoutMs: START_TIMEOUT_MS, intervalMs: 500 },
    );
    servedAfterStartMs = performance.now() - startedPortico;
    const logOffset = (await stat(portico.process.logPath)).size;
    const startMemory = {
      controller: await rssMiB(portico.process.pid),
      heap: await heapUsedMiB(portico.ports.healthz),
      nginx: await nginxMemory(portico.prefix, SETTLE_TIMEOUT_MS),
    };

    const deadline = performance.now() + minutes * 60_000;
    const healthProbe = startHealthProbe(portico.ports.healthz, minutes * 60_000 + SETTLE_TIMEOUT_MS);
    const load = startSoakLoad({
      httpPort: portico.ports.http,
      httpsPort: portico.ports.https,
      targets: targets.all,
      rate,
      maxRequests: rate * minutes * 60 + rate * 600,
      maxDurationMs: minutes * 60_000 + 600_000,
      timeoutMs: REQUEST_TIMEOUT_MS,
      maxInFlight: 64,
    });
    const get = (https: boolean, host: string, path: string) =>
      httpGet({ port: https ? portico.ports.https : portico.ports.http, host, path, https, timeoutMs: REQUEST_TIMEOUT_MS });

    for (let round = 1; round <= maxRounds && performance.now() < deadline; round++) {
      const certificate = await selfSignedCertificate(sample.rotated.hosts());
      const churnTo = backends.churn[round % 2]!;
      const path = `/soak-round-${round}`;
      sample.edited.setExtraPath(path);
      // Alternates, so every round changes a location directive: a reload.
      sample.edited.setAnnotation('proxy-read-timeout', String(60 + (round % 2)));
      sample.churned.setEndpoints(churnTo.map((backend) => backend.address));
      sample.rotated.setCertificate(certificate.certificatePem, certificate.keyPem);
      const writtenAt = performance.now();
      targets.editedPath.moveTo(path, writtenAt);
      await Promise.all([sample.edited.write(), sample.churned.write(), sample.rotated.write()]);

      const roundInstances = new Set(backends.round.map((backend) => backend.instance));
      const churnInstances = new Set(churnTo.map((backend) => backend.instance));
      const [edit, endpoints, rotation] = await Promise.all([
        timeUntil(writtenAt, async () => {
          const served = roundInstances.has(echoInstance((await get(false, sample.edited.host(), path)).body) ?? '');
          if (served) targets.editedPath.served(path);
          return served;
        }),
        timeUntil(writtenAt, async () => {
          return churnInstances.has(echoInstance((await get(false, sample.churned.host(), '/')).body) ?? '');
        }),
        timeUntil(
          writtenAt,
          async () => (await get(true, sample.rotated.host(), '/')).certificate?.fingerprint256 === certificate.fingerprint256,
        ),
      ]);
      for (const [kind, value] of [
        ['edit', edit],
        ['endpoints', endpoints],
        ['certificate', rotation],
      ] as const) {
        if (value === undefined) missed[kind]++;
        else latencies[kind].push(value);
      }
      rounds = round;
      // nginx's memory grows at its first reload (bench/reloadMemory.ts): the goal's other baseline.
      if (round === 1)
        afterFirstRound = {
          controller: await rssMiB(portico.process.pid),
          heap: await heapUsedMiB(portico.ports.healthz),
          nginx: await nginxMemory(portico.prefix, SETTLE_TIMEOUT_MS),
        };
    }

    report = await load.stop();
    health = await healthProbe.stop();
    const endMemory = {
      controller: await rssMiB(portico.process.pid),
      heap: await heapUsedMiB(portico.ports.healthz),
      nginx: await nginxMemory(portico.prefix, SETTLE_TIMEOUT_MS),
    };
    afterFirstRound ??= startMemory;
    memory = {
      controller: [startMemory.controller, afterFirstRound.controller, endMemory.controller],
      heap: [startMemory.heap, afterFirstRound.heap, endMemory.heap],
      nginx: [startMemory.nginx, afterFirstRound.nginx, endMemory.nginx],
    };
    reloadSummary = summarizeReloads(await readFrom(portico.process.logPath, logOffset));
  } finally {
    await portico.stop();
  }
} finally {
  await network.destroy();
  await rm(dir, { recursive: true, force: true });
}

const elapsedMinutes = (performance.now() - started) / 60_000;
const failures: Record<string, number> = {};
let ok = 0;
let pending = 0;
for (const byKind of Object.values(report.outcomes)) {
  for (const [kind, count] of Object.entries(byKind)) {
    if (kind === OK) ok += count;
    else if (kind === PENDING) pending += count;
    else failures[kind] = (failures[kind] ?? 0) + count;
  }
}
const bounded = { edit: 'edit not served', endpoints: 'endpoint switch not served', certificate: 'certificate not rotated' } as const;
for (const kind of ['edit', 'endpoints', 'certificate'] as const) {
  if (missed[kind] > 0) failures[`${bounded[kind]} within ${changeBoundMs / 1000} s`] = missed[kind];
}
const failed = Object.values(failures).reduce((sum, count) => sum + count, 0);
const ratio = (end: number, start: number): string => `×${figure(end / start, 2)}`;
/** Start → after round 1 → end, and the end against each. */
const memoryRow = (label: string, [start, first, end]: readonly number[]): string[] => [
  `${label}: start → after round 1 → end (end / start, end / round 1)`,
  `${figure(start!, 1)} → ${figure(first!, 1)} → ${figure(end!, 1)} (${ratio(end!, start!)}, ${ratio(end!, first!)})`,
];
const spread = (values: readonly number[]): string =>
  values.length === 0 ? 'none served' : `${figure(median(values))} / ${figure(Math.max(...values))}`;

process.stdout.write(
  `${describeMachine()}\n${figure(ingresses)} Ingresses (manifest mode), ${figure(rounds)} rounds in ${figure(elapsedMinutes, 1)} min ` +
    `(whole run), load ${rate} requests/s over ${Object.keys(report.outcomes).length} targets\n\n`,
);
printTable(
  ['quantity', 'value'],
  [
    ['from start to every sample host served, ms (polled every 500 ms)', figure(servedAfterStartMs)],
    ['rounds (edit + endpoint churn + certificate rotation each)', figure(rounds)],
    ['requests sent (due but not sent: in-flight cap)', `${figure(report.sent)} (${figure(report.notSent)})`],
    ['answered as they should', figure(ok)],
    ["the round's new path before it was first served (not failures)", figure(pending)],
    ['GETs sent again on a new connection (reused one closed before any answer)', figure(report.retried)],
    ['failed, all kinds', figure(failed)],
    ...Object.entries(failures).map(([kind, count]) => [`  failed: ${kind}`, figure(count)]),
    ['reloads (Portico log)', figure(reloadSummary.reloads)],
    ['longest reload, ms (SIGHUP to loaded)', figure(reloadSummary.longestReloadMs)],
    ['longest data-plane apply, ms (render, live push, nginx)', figure(reloadSummary.longestApplyMs)],
    ['longest live push, ms (backends, certificates)', figure(reloadSummary.longestLiveMs)],
    ['reloads that began before the previous one ended', figure(reloadSummary.overlaps)],
    ['error lines in Portico log', figure(reloadSummary.errors)],
    ['edit served, ms after the write (median / max)', spread(latencies.edit)],
    ['endpoint switch served, ms (median / max)', spread(latencies.endpoints)],
    ['new certificate served, ms (median / max)', spread(latencies.certificate)],
    memoryRow('controller RSS MiB', memory.controller),
    memoryRow('controller heap used MiB', memory.heap),
    memoryRow(
      'nginx PSS MiB (master + workers)',
      memory.nginx.map((each) => each.pssKiB / 1024),
    ),
    memoryRow(
      'nginx RSS MiB (master + workers)',
      memory.nginx.map((each) => each.rssKiB / 1024),
    ),
    ['/healthz probes (not 200), max latency ms', `${figure(health.probes)} (${figure(health.failed)}), ${figure(health.maxMs, 1)}`],
  ],
);
process.stdout.write('\nBy target\n\n');
printTable(
  ['target', 'sent', 'as they should', 'not yet served', 'failed'],
  Object.entries(report.outcomes).map(([name, byKind]) => {
    const total = Object.values(byKind).reduce((sum, count) => sum + count, 0);
    const good = byKind[OK] ?? 0;
    const notYet = byKind[PENDING] ?? 0;
    return [name, figure(total), figure(good), figure(notYet), figure(total - good - notYet)];
  }),
);
if (report.failures.length > 0) process.stdout.write(`\nFirst failures:\n${report.failures.map((line) => `- ${line}`).join('\n')}\n`);
