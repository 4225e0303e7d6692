/**
 * Issue 18's start to serving: the built Portico (dist/) in manifest mode on
 * the synthetic cluster (one file per Ingress, every EndpointSlice pointing at
 * two echo backends in a network namespace), timed from its spawn until a
 * sample of hosts (plain, TLS over HTTPS, regex mode; spread over the
 * Ingresses) each answered 200 through nginx; then every host is asked once
 * (not timed) to show the sample stands for all. Beside it, the phases of the
 * controller's own 'start phases' log line. With `--baseline DIR`, another
 * checkout's built Portico (e.g. main's, built in a copy) starts in the same
 * minutes, runs alternating.
 *   node --import tsx bench/startToServing.ts [--ingresses 1000,10000] [--runs 3] [--baseline /tmp/base]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Ingress } from '../src/kube/objects.js';
import { httpGet } from '../test/support/httpGet.js';
import { startPortico, type PorticoPorts, type PorticoProcess } from '../test/support/porticoProcess.js';
import { createTestNetwork } from '../test/support/testNetwork.js';
import { describeMachine } from './support/machine.js';
import { cpuSecondsBetween, cpuTicks } from './support/processCpu.js';
import { positiveInteger } from './support/options.js';
import { median } from './support/statistics.js';
import { ANNOTATIONS_PREFIX } from './support/syntheticCluster.js';
import { writeSyntheticManifests } from './support/syntheticManifests.js';
import { figure, printTable } from './support/table.js';

const { values } = parseArgs({
  options: {
    ingresses: { type: 'string', default: '1000,10000' },
    runs: { type: 'string', default: '1' },
    sample: { type: 'string', default: '12' },
    baseline: { type: 'string' },
  },
  strict: true,
});
const sizes = values.ingresses.split(',').map((size) => positiveInteger('--ingresses', size));
const runs = positiveInteger('--runs', values.runs);
const sampleSize = positiveInteger('--sample', values.sample);

/** 10,000 Ingresses on a busy machine: about a minute; the bound only stops a start that hangs. */
const START_BOUND_MS = 600_000;
const POLL_INTERVAL_MS = 50;
const REQUEST_TIMEOUT_MS = 2_000;
/** The synthetic EndpointSlices' port (targetPort 8080). */
const BACKEND_PORT = 8080;
/** The phases of the 'start phases' line (src/cli/startPhases.ts), then the first sync's parts. */
const PHASES = ['moduleLoad', 'setup', 'source', 'sync', 'health'];
const SYNC_PARTS = ['model', 'prepare', 'render', 'nginxStart', 'push'];
/** How long the controller's CPU is counted after the sample was served (a sync right after the start shows there). */
const AFTER_SERVED_MS = 3_000;

interface Host {
  name: string;
  https: boolean;
  /** An allowlist (10.0.0.0/8, 192.168.0.0/16) refuses 127.0.0.1: its own server's 403 shows it is served. */
  status: number;
}

interface Run {
  servedMs: number;
  phases: Record<string, number>;
  /** Hosts of the whole cluster that did not answer as expected when asked once after the sample was served. */
  unserved: number;
  /** The controller's CPU (user + system), ms: from its spawn until the sample was served, and in the AFTER_SERVED_MS after. */
  cpuToServedMs: number;
  cpuAfterServedMs: number;
}

function hostsOf(ingresses: readonly Ingress[]): Host[] {
  return ingresses.flatMap((ingress) => {
    const https = (ingress.spec?.tls ?? []).length > 0;
    const allowlisted = `${ANNOTATIONS_PREFIX}/allowlist-source-range` in (ingress.metadata?.annotations ?? {});
    return (ingress.spec?.rules ?? []).map((rule) => ({ name: rule.host ?? '', https, status: allowlisted ? 403 : 200 }));
  });
}

/** `count` hosts spread evenly over the cluster, without allowlisted ones (200 is the answer the sample waits for). */
function sampleOf(hosts: readonly Host[], count: number): Host[] {
  const answering = hosts.filter((host) => host.status === 200);
  const step = Math.max(1, Math.floor(answering.length / count));
  return answering.filter((_, index) => index % step === 0).slice(0, count);
}

async function answers(ports: PorticoPorts, host: Host): Promise<boolean> {
  const port = host.https ? ports.https : ports.http;
  const result = await httpGet({ port, host: host.name, https: host.https, timeoutMs: REQUEST_TIMEOUT_MS }).catch(() => undefined);
  return result?.status === host.status;
}

/** Asks the sample hosts not yet served, together, every POLL_INTERVAL_MS, until each answered as expected. */
async function pollUntilServed(ports: () => PorticoPorts | undefined, sample: readonly Host[], deadline: number): Promise<void> {
  let waiting = [...sample];
  while (waiting.length > 0) {
    if (performance.now() > deadline) throw new Error(`not served in time: ${waiting.map((host) => host.name).join(', ')}`);
    const known = ports();
    if (known !== undefined) {
      const served = await Promise.all(waiting.map((host) => answers(known, host)));
      waiting = waiting.filter((_, index) => !served[index]);
    }
    if (waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/** Every host once, eight at a time: how many did not answer as expected. */
async function unservedHosts(ports: PorticoPorts, hosts: readonly Host[]): Promise<number> {
  let unserved = 0;
  for (let start = 0; start < hosts.length; start += 8) {
    const answered = await Promise.all(hosts.slice(start, start + 8).map((host) => answers(ports, host)));
    unserved += answered.filter((ok) => !ok).length;
  }
  return unserved;
}

/** The last 'start phases' line of the log, or {} (a checkout that does not write it). */
function startPhases(portico: PorticoProcess): Record<string, number> {
  const line = portico
    .logTail(100_000)
    .split('\n')
    .findLast((entry) => entry.includes('"msg":"start phases"'));
  return line === undefined ? {} : (JSON.parse(line) as Record<string, number>);
}

async function timedStart(dir: string, command: string | undefined, hosts: readonly Host[], sample: readonly Host[]): Promise<Run> {
  let spawnedAt = 0;
  let ports: PorticoPorts | undefined;
  const onSpawn = (spawned: PorticoPorts): void => {
    spawnedAt = performance.now();
    ports = spawned;
  };
  const starting = startPortico([`--manifests=${dir}`, '--profiling=false'], { readyTimeoutMs: START_BOUND_MS, command, onSpawn });
  // A start that fails ends the poll; a poll that fails leaves the start to finish (and stops it).
  const polled = Promise.race([
    pollUntilServed(() => ports, sample, performance.now() + START_BOUND_MS),
    starting.then(() => new Promise(() => {})),
  ]);
  let servedMs: number;
  try {
    await polled;
    servedMs = performance.now() - spawnedAt;
  } catch (error) {
    await starting.then((portico) => portico.stop()).catch(() => undefined);
    throw error;
  }
  const portico = await starting;
  try {
    const atServed = await cpuTicks([portico.process.pid]);
    await new Promise((resolve) => setTimeout(resolve, AFTER_SERVED_MS));
    const settled = await cpuTicks([portico.process.pid]);
    const cpuToServedMs = cpuSecondsBetween({ user: 0, system: 0 }, atServed).total * 1000;
    const cpuAfterServedMs = cpuSecondsBetween(atServed, settled).total * 1000;
    const unserved = await unservedHosts(portico.ports, hosts);
    return { servedMs, phases: startPhases(portico), unserved, cpuToServedMs, cpuAfterServedMs };
  } finally {
    await portico.stop();
  }
}

const range = (values: readonly number[]): string =>
  values.length === 0
    ? '–'
    : values.length === 1
      ? figure(values[0]!)
      : `${figure(median(values))} (${figure(Math.min(...values))}–${figure(Math.max(...values))})`;

const network = await createTestNetwork();
try {
  const backends = await Promise.all(
    ['start-1', 'start-2'].map(async (instance) => {
      const address = await network.addAddress();
      await network.startEcho({ service: 'start', instance, address, port: BACKEND_PORT });
      return address;
    }),
  );
  const variants: { name: string; command: string | undefined }[] = [
    { name: 'this checkout', command: undefined },
    ...(values.baseline ? [{ name: `baseline (${values.baseline})`, command: join(values.baseline, 'bin/portico.js') }] : []),
  ];
  for (const size of sizes) {
    const dir = await mkdtemp(join(tmpdir(), 'portico-bench-start-'));
    try {
      const { ingresses, bytes } = await writeSyntheticManifests(dir, size, backends);
      const hosts = hostsOf(ingresses);
      const sample = sampleOf(hosts, sampleSize);
      const results = variants.map(() => [] as Run[]);
      for (let run = 0; run < runs; run++) {
        for (const [index, variant] of variants.entries()) results[index]!.push(await timedStart(dir, variant.command, hosts, sample));
      }
      console.log(`\n${describeMachine()}`);
      console.log(
        `${size.toLocaleString('en-US')} Ingresses, ${hosts.length.toLocaleString('en-US')} hosts, ${(bytes / 1048576).toFixed(1)} MiB of manifests; ` +
          `${sample.length} sample hosts (${sample.filter((host) => host.https).length} over HTTPS) polled every ${POLL_INTERVAL_MS} ms; ${runs} run(s) each, median (min–max)\n`,
      );
      const row = (label: string, pick: (run: Run) => number | undefined): string[] => [
        label,
        ...results.map((each) => range(each.map(pick).filter((value): value is number => value !== undefined))),
      ];
      printTable(
        ['ms', ...variants.map((variant) => variant.name)],
        [
          row('spawn → every sample host answered 200', (run) => run.servedMs),
          row('hosts not answering when asked once after', (run) => run.unserved),
          row('controller CPU, spawn → served', (run) => run.cpuToServedMs),
          row(`controller CPU in the ${AFTER_SERVED_MS / 1000} s after`, (run) => run.cpuAfterServedMs),
          row("controller's own count: process start → serving", (run) => run.phases['totalMs']),
          ...PHASES.map((phase) => row(`  ${phase}`, (run) => run.phases[`${phase}Ms`])),
          ...SYNC_PARTS.map((part) => row(`    sync: ${part}`, (run) => run.phases[`${part}Ms`])),
        ],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
} finally {
  await network.destroy();
}
