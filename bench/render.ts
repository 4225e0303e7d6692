/**
 * The controller's cost of one full sync at 1,000 and 10,000 Ingresses, step
 * by step, and of `nginx -t` on the result (the load every reload pays in the master):
 *   node --import tsx bench/render.ts [--runs 5]
 *
 * Each size runs in a fresh child process (started with --expose-gc), so its
 * heap and RSS are that size's alone. The child fills a Store as the initial
 * list does, then syncs as SyncLoop.sync does: acceptance, buildConfiguration,
 * renderNginxConf, and the comparison with the previous configuration (sameJson;
 * the later runs build the same one, so it walks all of it, the worst case).
 * The first sync (cold JIT, certificates parsed) is reported apart from the
 * median of the later ones. `nginx -t` runs on the result twice, side by side:
 * with the Lua module Portico loads (its build of Debian's, luaModule.ts) and
 * with Debian's, which builds an OpenSSL context in every location block.
 * Then Portico's file and the one ingress-nginx would write for the same cluster
 * load one after the other (support/shapedComparison.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { IngressAcceptance } from '../src/controller/ingressAcceptance.js';
import { sameJson } from '../src/controller/sameJson.js';
import { createPrefixDirs, prefixLayout, type PrefixLayout } from '../src/dataplane/nginx/process/prefixLayout.js';
import { DEBIAN_LUA_MODULE, PORTICO_LUA_MODULE } from '../src/dataplane/nginx/luaModule.js';
import { masterEnvironment } from '../src/dataplane/nginx/process/masterMalloc.js';
import { nginxArguments } from '../src/dataplane/nginx/process/nginxArguments.js';
import { createRenderContext, type RenderContext } from '../src/dataplane/nginx/render/renderContext.js';
import { renderNginxConf } from '../src/dataplane/nginx/render/renderNginxConf.js';
import { ensureFakeCertificate } from '../src/dataplane/tls/fakeCertificate.js';
import { parseIngressAnnotations } from '../src/model/annotations/parseIngressAnnotations.js';
import { buildConfiguration, type ModelResult } from '../src/model/buildConfiguration.js';
import { DEFAULT_SETTINGS } from '../src/model/settings/globalSettings.js';
import type { Configuration, LocationAnnotations } from '../src/model/types.js';
import { Store } from '../src/store/store.js';
import { describeMachine } from './support/machine.js';
import { positiveInteger } from './support/options.js';
import { measureInChild } from './support/sizeChild.js';
import { measureShapedComparison, printShapedComparison, type ShapedComparison } from './support/shapedComparison.js';
import { median } from './support/statistics.js';
import {
  ANNOTATIONS_PREFIX,
  STORE_SETTINGS,
  syntheticCluster,
  wildcardCertificate,
  type SyntheticCluster,
} from './support/syntheticCluster.js';
import { figure, printTable } from './support/table.js';

const SIZES = [1_000, 10_000];
const NGINX_BINARY = '/usr/sbin/nginx';
/** GNU time (Debian's `time`, bench/run.sh installs it): the peak RSS of nginx -t. */
const GNU_TIME = '/usr/bin/time';
// Far above what 10,000 Ingresses take on 2 cores, so a slow test is measured rather than cut off.
const NGINX_TEST_TIMEOUT_MS = 600_000;
const MIB = 1024 * 1024;

const STEPS = {
  storeFill: 'store fill (initial list of 5 kinds)',
  acceptance: 'acceptance (annotations, paths)',
  model: 'buildConfiguration',
  render: 'renderNginxConf',
  compare: 'sameJson with the previous (change check)',
} as const;
type Step = keyof typeof STEPS;
type StepTimes = Record<Step, number>;

/** What one child reports for its size. */
interface SizeReport {
  ingresses: number;
  runs: number;
  first: StepTimes;
  medians: StepTimes;
  servers: number;
  locations: number;
  /** `location` blocks in nginx.conf: a prefix path becomes two (`= /p` and `/p/`). */
  locationBlocks: number;
  upstreams: number;
  certificates: number;
  confBytes: number;
  confLines: number;
  heapBeforeBytes: number;
  heapAfterBytes: number;
  rssAfterBytes: number;
  /** With Portico's Lua module, then with Debian's. */
  nginxTest: { portico: NginxTestCost; debian: NginxTestCost };
  /** Beside the nginx.conf ingress-nginx would write for the same cluster. */
  shaped: ShapedComparison;
}

interface NginxTestCost {
  ms: number;
  /** User plus system CPU, and the peak resident memory; undefined without GNU time. */
  cpuMs: number | undefined;
  maxRssBytes: number | undefined;
}

/** What the controller holds after a sync (the store, accepted versions, the configuration and its text). */
interface SyncState {
  store: Store;
  acceptance: IngressAcceptance;
  result: ModelResult;
  conf: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '5' }, ingresses: { type: 'string' } },
    strict: true,
  });
  const runs = positiveInteger('--runs', values.runs);
  if (values.ingresses !== undefined) {
    process.stdout.write(`${JSON.stringify(await measureSize(positiveInteger('--ingresses', values.ingresses), runs))}\n`);
    return;
  }
  process.stdout.write(`machine before: ${describeMachine()}\n`);
  const reports: SizeReport[] = [];
  for (const size of SIZES) reports.push(await measureSizeInChild(size, runs));
  printReports(reports);
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

function measureSizeInChild(ingresses: number, runCount: number): Promise<SizeReport> {
  process.stderr.write(`render: ${figure(ingresses)} Ingresses...\n`);
  return measureInChild(fileURLToPath(import.meta.url), ['--ingresses', String(ingresses), '--runs', String(runCount)]);
}

async function measureSize(ingresses: number, runCount: number): Promise<SizeReport> {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('the child needs --expose-gc');
  const certificate = await wildcardCertificate();
  const { layout, context } = await createBenchPrefix();
  try {
    const defaults = defaultAnnotations();
    gc();
    const heapBeforeBytes = process.memoryUsage().heapUsed;
    const cluster = syntheticCluster(ingresses, certificate);

    const first = await measureFirstSync(cluster, context, layout, defaults, () => gc());

    const laterRuns: StepTimes[] = [];
    let previous: Configuration | undefined;
    for (let run = 0; run < runCount; run++) {
      gc(); // each run pays for its own garbage, not the previous run's
      const { times, state } = timedSync(cluster, context, defaults, previous);
      laterRuns.push(times);
      previous = state.result.configuration;
    }
    const medians = Object.fromEntries(
      (Object.keys(STEPS) as Step[]).map((step) => [step, median(laterRuns.map((times) => times[step]))]),
    ) as StepTimes;
    return { ingresses, runs: runCount, medians, heapBeforeBytes, ...first };
  } finally {
    await rm(layout.prefix, { recursive: true, force: true });
  }
}

/**
 * The first sync, as a starting controller runs it: its step times, the
 * memory it holds afterwards, and `nginx -t` on its result. Its state is let
 * go on return, so the later runs do not carry it.
 */
async function measureFirstSync(
  cluster: SyntheticCluster,
  context: RenderContext,
  layout: PrefixLayout,
  defaults: LocationAnnotations,
  gc: () => void,
): Promise<Omit<SizeReport, 'ingresses' | 'runs' | 'medians' | 'heapBeforeBytes'>> {
  const { times, state } = timedSync(cluster, context, defaults);
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  const { configuration } = state.result;
  return {
    first: times,
    servers: configuration.servers.length,
    locations: configuration.servers.reduce((sum, server) => sum + server.locations.length, 0),
    locationBlocks: state.conf.match(/^\s*location /gm)?.length ?? 0,
    upstreams: configuration.backends.filter((backend) => backend.endpoints.length > 0).length,
    certificates: configuration.certificates.length,
    confBytes: Buffer.byteLength(state.conf),
    confLines: state.conf.split('\n').length - 1,
    heapAfterBytes: heapUsed,
    rssAfterBytes: rss,
    nginxTest: await nginxTestCosts(layout, state),
    shaped: await measureShapedComparison(cluster.ingresses.length, configuration, state.conf, context, layout.prefix, (conf) =>
      timedNginxTest(layout, conf),
    ),
  };
}

/** A prefix laid out as NginxDataPlane lays out Portico's, with its fake certificate. */
async function createBenchPrefix(): Promise<{ layout: PrefixLayout; context: RenderContext }> {
  const layout = prefixLayout(await mkdtemp(join(tmpdir(), 'portico-bench-render-')));
  await createPrefixDirs(layout);
  const fakeCertificate = await ensureFakeCertificate(layout.certificateDir);
  if (!existsSync(PORTICO_LUA_MODULE)) throw new Error(`${PORTICO_LUA_MODULE} is missing: run scripts/setup.sh`);
  const context = createRenderContext(layout.prefix, {
    luaDir: fileURLToPath(new URL('../lua/', import.meta.url)),
    luaModuleFile: PORTICO_LUA_MODULE,
    paths: { errorLog: layout.errorLog, accessLog: layout.accessLog, temp: layout.temp, fakeCertificate },
  });
  return { layout, context };
}

/** What SyncLoop gives the locations Portico generates. */
function defaultAnnotations(): LocationAnnotations {
  const parsed = parseIngressAnnotations(undefined, { prefix: ANNOTATIONS_PREFIX, settings: DEFAULT_SETTINGS });
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  return parsed.value.location;
}

/** One store fill and one sync from scratch, each step timed. */
function timedSync(
  cluster: SyntheticCluster,
  context: RenderContext,
  defaults: LocationAnnotations,
  previous?: Configuration,
): { times: StepTimes; state: SyncState } {
  let mark = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const elapsed = now - mark;
    mark = now;
    return elapsed;
  };

  // The order KubernetesSource starts its reflectors in: Ingresses last.
  const store = new Store(STORE_SETTINGS);
  store.sink('IngressClass').replace(cluster.ingressClasses);
  store.sink('Service').replace(cluster.services);
  store.sink('EndpointSlice').replace(cluster.endpointSlices);
  store.sink('Secret').replace(cluster.secrets);
  store.sink('Ingress').replace(cluster.ingresses);
  store.changes.close();
  const storeFill = lap();

  const acceptance = new IngressAcceptance(ANNOTATIONS_PREFIX);
  const accepted = acceptance.update(store.ingresses(), DEFAULT_SETTINGS);
  const acceptanceTime = lap();

  const result = buildConfiguration({
    ingresses: accepted.accepted,
    lookup: store,
    settings: DEFAULT_SETTINGS,
    defaultAnnotations: defaults,
    endpoints: { guard: { porticoPorts: [], interfaceAddresses: [], refuseLoopbackEverywhere: false }, externalNames: true },
  });
  const model = lap();

  const conf = renderNginxConf(result.configuration, context);
  const render = lap();

  const unchanged = sameJson(result.configuration, previous);
  const compare = lap();
  if (previous !== undefined && !unchanged) throw new Error('the same cluster built a different configuration');

  // A fixture the model does not serve as meant would measure something else.
  if (accepted.accepted.length !== cluster.ingresses.length || result.problems.length > 0 || result.warnings.length > 0) {
    const first = accepted.refused[0]?.errors.join('; ') ?? result.problems[0]?.message ?? result.warnings[0];
    throw new Error(`the synthetic cluster is not served as intended: ${first}`);
  }
  return {
    times: { storeFill, acceptance: acceptanceTime, model, render, compare },
    state: { store, acceptance, result, conf },
  };
}

/**
 * `nginx -t` as NginxProcess runs it at start (a reload loads the same), on the
 * first sync's text: with Portico's Lua module, then the same text with Debian's.
 */
async function nginxTestCosts(layout: PrefixLayout, state: SyncState): Promise<SizeReport['nginxTest']> {
  const portico = await timedNginxTest(layout, state.conf);
  const debian = await timedNginxTest(layout, state.conf.replace(`"${PORTICO_LUA_MODULE}"`, `"${DEBIAN_LUA_MODULE}"`));
  return { portico, debian };
}

async function timedNginxTest(layout: PrefixLayout, conf: string): Promise<NginxTestCost> {
  await writeFile(layout.candidateConfigFile, conf, { mode: 0o600 });
  const nginx = [NGINX_BINARY, '-t', '-q', ...nginxArguments(layout, layout.candidateConfigFile)];
  const withTime = existsSync(GNU_TIME);
  const [command, ...args] = withTime ? [GNU_TIME, '-f', 'maxrss %M cpu %U %S', ...nginx] : nginx;
  const started = performance.now();
  const output = await new Promise<string>((resolve, reject) => {
    // The master's malloc settings (masterMalloc.ts): the load is measured as the data plane runs it.
    const child = spawn(command!, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: NGINX_TEST_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      env: masterEnvironment(),
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(stderr) : reject(new Error(`nginx -t refused the rendered configuration: ${stderr}`)),
    );
  });
  const ms = performance.now() - started;
  const usage = /^maxrss (\d+) cpu ([\d.]+) ([\d.]+)$/m.exec(output);
  if (usage === null) return { ms, cpuMs: undefined, maxRssBytes: undefined };
  return { ms, cpuMs: (Number(usage[2]) + Number(usage[3])) * 1000, maxRssBytes: Number(usage[1]) * 1024 };
}

function printReports(reports: readonly SizeReport[]): void {
  const sizes = reports.map((report) => `${figure(report.ingresses)} Ingresses`);
  const runCount = reports[0]?.runs ?? 0;

  process.stdout.write(`\nOne full sync, ms (median of ${runCount} runs after the first; the first run in brackets)\n\n`);
  const total = (times: StepTimes): number => (Object.keys(STEPS) as Step[]).reduce((sum, step) => sum + times[step], 0);
  const timeCell = (medianMs: number, firstMs: number): string => `${figure(medianMs, 1)} (${figure(firstMs, 1)})`;
  printTable(
    ['step', ...sizes],
    [
      ...(Object.keys(STEPS) as Step[]).map((step) => [STEPS[step], ...reports.map((r) => timeCell(r.medians[step], r.first[step]))]),
      ['total', ...reports.map((r) => timeCell(total(r.medians), total(r.first)))],
      [
        'per Ingress, total (µs)',
        ...reports.map((r) => `${figure((total(r.medians) * 1000) / r.ingresses)} (${figure((total(r.first) * 1000) / r.ingresses)})`),
      ],
    ],
  );

  process.stdout.write('\nSize of the result, controller memory, reload cost\n\n');
  const mib = (bytes: number): string => figure(bytes / MIB, 1);
  printTable(
    ['quantity', ...sizes],
    [
      [
        'servers / model locations / location blocks',
        ...reports.map((r) => `${figure(r.servers)} / ${figure(r.locations)} / ${figure(r.locationBlocks)}`),
      ],
      ['upstreams / certificates', ...reports.map((r) => `${figure(r.upstreams)} / ${figure(r.certificates)}`)],
      ['nginx.conf (MiB / lines)', ...reports.map((r) => `${mib(r.confBytes)} / ${figure(r.confLines)}`)],
      [
        'heap held by the synced state (of all used), MiB',
        ...reports.map((r) => `${mib(r.heapAfterBytes - r.heapBeforeBytes)} (${mib(r.heapAfterBytes)})`),
      ],
      ['RSS after first sync (MiB)', ...reports.map((r) => mib(r.rssAfterBytes))],
      ...(['portico', 'debian'] as const).map((module) => [
        `nginx -t, ${module === 'portico' ? "Portico's" : "Debian's"} Lua module: ms once (CPU ms; peak RSS MiB)`,
        ...reports.map((r) => {
          const cost = r.nginxTest[module];
          const cpu = cost.cpuMs === undefined ? 'n/a' : figure(cost.cpuMs);
          return `${figure(cost.ms)} (${cpu}; ${cost.maxRssBytes === undefined ? 'n/a' : mib(cost.maxRssBytes)})`;
        }),
      ]),
      ["nginx -t, Debian's / Portico's module (time)", ...reports.map((r) => figure(r.nginxTest.debian.ms / r.nginxTest.portico.ms, 2))],
    ],
  );
  printShapedComparison(reports.map((r) => r.shaped));
}

await main();
