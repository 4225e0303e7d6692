/**
 * The controller's CPU for a sync after one Ingress changed, at 1,000 and
 * 10,000 Ingresses, step by step, with the model's memo (src/model/memo/) and
 * without it, side by side on the same store:
 *   node --import tsx bench/renderChanges.ts [--runs 5]
 *
 * Each size runs in a child of its own (bench/support/sizeChild.ts). The child
 * fills a Store with bench/render.ts's synthetic cluster and syncs it twice;
 * then, `--runs` times for each kind of change (a path edited, a backend
 * edited, an annotation edited, an Ingress added, one deleted; each run on
 * another Ingress, left changed), it changes the store as a watch event does
 * and syncs as SyncLoop does: acceptance, buildConfiguration, the render with
 * the render cache (serverTextCache.ts), and the change check (sameJson with
 * the previous configuration). The model runs from scratch and with the memo,
 * in alternating order; each configuration is rendered with a cache of its
 * own. Both configurations must be the same JSON and both texts the same text.
 * Times are the process's CPU (user + system), medians of the runs. The heap
 * the memo holds is the heap given back when it is dropped.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { IngressAcceptance } from '../src/controller/ingressAcceptance.js';
import { sameJson } from '../src/controller/sameJson.js';
import { createRenderContext } from '../src/dataplane/nginx/render/renderContext.js';
import { renderNginxConf } from '../src/dataplane/nginx/render/renderNginxConf.js';
import { ServerTextCache } from '../src/dataplane/nginx/render/serverTextCache.js';
import type { Ingress } from '../src/kube/objects.js';
import { parseIngressAnnotations } from '../src/model/annotations/parseIngressAnnotations.js';
import { buildConfiguration, type ModelInput } from '../src/model/buildConfiguration.js';
import { ModelMemo } from '../src/model/memo/modelMemo.js';
import { DEFAULT_SETTINGS } from '../src/model/settings/globalSettings.js';
import type { Configuration } from '../src/model/types.js';
import { Store } from '../src/store/store.js';
import { describeMachine } from './support/machine.js';
import { positiveInteger } from './support/options.js';
import { measureInChild } from './support/sizeChild.js';
import { median } from './support/statistics.js';
import { ANNOTATIONS_PREFIX, STORE_SETTINGS, syntheticCluster, wildcardCertificate } from './support/syntheticCluster.js';
import { figure, printTable } from './support/table.js';

const SIZES = [1_000, 10_000];
const MIB = 1024 * 1024;

/** One Ingress changed as a user would change it: `run` picks which one. */
const CHANGES = {
  path: 'a path edited',
  backend: 'a backend edited',
  annotation: 'an annotation edited',
  add: 'an Ingress added',
  delete: 'an Ingress deleted',
} as const;
type Change = keyof typeof CHANGES;

/** One step's CPU ms without the memo, and with it. */
interface Pair {
  plain: number;
  memo: number;
}

interface StepCpu {
  acceptance: number;
  model: Pair;
  /** With the render cache. */
  render: Pair;
  compare: Pair;
  /** Servers the cached render of the memoized configuration wrote (the others it copied). */
  serversWritten: number;
}

interface SizeReport {
  ingresses: number;
  servers: number;
  runs: number;
  medians: Record<Change, StepCpu>;
  /** After the runs, with both caches, the memo and the last configurations held. */
  rssBytes: number;
  heapUsedBytes: number;
  /** The text and line origins the memoized path's render cache holds. */
  cacheTextBytes: number;
  /** Heap given back when the memo is dropped, and its entries per table. */
  memoHeapBytes: number;
  memoSizes: ModelMemo['sizes'];
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
  for (const size of SIZES) {
    process.stderr.write(`renderChanges: ${figure(size)} Ingresses...\n`);
    reports.push(await measureInChild(fileURLToPath(import.meta.url), ['--ingresses', String(size), '--runs', String(runs)]));
  }
  printReports(reports);
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

/** CPU milliseconds of `body` (user + system of the whole process: the garbage collector's threads count). */
function cpuOf<T>(body: () => T): { value: T; ms: number } {
  const before = process.cpuUsage();
  const value = body();
  const { user, system } = process.cpuUsage(before);
  return { value, ms: (user + system) / 1000 };
}

async function measureSize(ingresses: number, runs: number): Promise<SizeReport> {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('the child needs --expose-gc');
  const cluster = syntheticCluster(ingresses, await wildcardCertificate());
  const store = new Store(STORE_SETTINGS);
  store.sink('IngressClass').replace(cluster.ingressClasses);
  store.sink('Service').replace(cluster.services);
  store.sink('EndpointSlice').replace(cluster.endpointSlices);
  store.sink('Secret').replace(cluster.secrets);
  store.sink('Ingress').replace(cluster.ingresses);
  store.changes.close();

  const parsed = parseIngressAnnotations(undefined, { prefix: ANNOTATIONS_PREFIX, settings: DEFAULT_SETTINGS });
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const defaults = parsed.value.location;
  const context = createRenderContext('/tmp/portico-bench-render-changes', { luaDir: fileURLToPath(new URL('../lua/', import.meta.url)) });
  const acceptance = new IngressAcceptance(ANNOTATIONS_PREFIX);
  const endpoints = { guard: { porticoPorts: [], interfaceAddresses: [], refuseLoopbackEverywhere: false }, externalNames: true };
  const plain = { cache: new ServerTextCache(), previous: undefined as Configuration | undefined };
  const memoized = { cache: new ServerTextCache(), previous: undefined as Configuration | undefined, memo: new ModelMemo() };

  const sync = (memoFirst: boolean): StepCpu => {
    const accepted = cpuOf(() => acceptance.update(store.ingresses(), DEFAULT_SETTINGS));
    const input: ModelInput = {
      ingresses: accepted.value.accepted,
      lookup: store,
      settings: DEFAULT_SETTINGS,
      defaultAnnotations: defaults,
      endpoints,
    };
    const withMemo = () => cpuOf(() => buildConfiguration(input, memoized.memo).configuration);
    const first = memoFirst ? withMemo() : undefined;
    const model = { plain: cpuOf(() => buildConfiguration(input).configuration), memo: first ?? withMemo() };
    if (!sameJson(model.plain.value, model.memo.value)) throw new Error('the memoized model differs from the model from scratch');
    const written = memoized.cache.counts.written;
    const renderMemo = () => cpuOf(() => renderNginxConf(model.memo.value, context, memoized.cache));
    const renderFirst = memoFirst ? renderMemo() : undefined;
    const render = { plain: cpuOf(() => renderNginxConf(model.plain.value, context, plain.cache)), memo: renderFirst ?? renderMemo() };
    if (render.plain.value !== render.memo.value) throw new Error('the two configurations rendered different texts');
    const compare = {
      plain: cpuOf(() => sameJson(model.plain.value, plain.previous)).ms,
      memo: cpuOf(() => sameJson(model.memo.value, memoized.previous)).ms,
    };
    plain.previous = model.plain.value;
    memoized.previous = model.memo.value;
    return {
      acceptance: accepted.ms,
      model: { plain: model.plain.ms, memo: model.memo.ms },
      render: { plain: render.plain.ms, memo: render.memo.ms },
      compare,
      serversWritten: memoized.cache.counts.written - written,
    };
  };

  sync(false);
  sync(true);
  const ingressesByName = new Map(cluster.ingresses.map((ingress) => [ingress.metadata!.name!, ingress]));
  const medians = {} as Record<Change, StepCpu>;
  for (const [kindIndex, change] of (Object.keys(CHANGES) as Change[]).entries()) {
    const runsOfChange: StepCpu[] = [];
    for (let run = 0; run < runs; run++) {
      // A different Ingress each run, spread over the cluster, none changed twice.
      // Not one in regex mode (i % 10 === 5): its rewrite-target would refuse the added path.
      const spread = (run * 7919 + kindIndex * 104_729) % ingresses;
      const index = spread % 10 === 5 ? spread - 1 : spread;
      applyChange(change, store, ingressesByName, `app-${index}`, `${kindIndex}-${run}`);
      gc(); // each sync pays for its own garbage
      runsOfChange.push(sync(run % 2 === 1));
    }
    const of = (pick: (cpu: StepCpu) => number) => median(runsOfChange.map(pick));
    const pair = (pick: (cpu: StepCpu) => Pair): Pair => ({ plain: of((cpu) => pick(cpu).plain), memo: of((cpu) => pick(cpu).memo) });
    medians[change] = {
      acceptance: of((cpu) => cpu.acceptance),
      model: pair((cpu) => cpu.model),
      render: pair((cpu) => cpu.render),
      compare: pair((cpu) => cpu.compare),
      serversWritten: of((cpu) => cpu.serversWritten),
    };
  }
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  const memoSizes = memoized.memo.sizes;
  (memoized as { memo?: ModelMemo }).memo = undefined;
  gc();
  return {
    ingresses,
    servers: memoized.previous?.servers.length ?? 0,
    runs,
    medians,
    rssBytes: rss,
    heapUsedBytes: heapUsed,
    cacheTextBytes: memoized.cache.textBytes,
    memoHeapBytes: heapUsed - process.memoryUsage().heapUsed,
    memoSizes,
  };
}

/** The store's copy of Ingress `name` changed as `change` says (a watch event's new object). */
function applyChange(change: Change, store: Store, ingresses: Map<string, Ingress>, name: string, tag: string): void {
  const sink = store.sink('Ingress');
  const current = ingresses.get(name);
  if (current === undefined) throw new Error(`no Ingress ${name}`);
  if (change === 'delete') {
    sink.remove(current);
    ingresses.delete(name);
    return;
  }
  const next = structuredClone(current);
  next.metadata!.resourceVersion = `${current.metadata!.resourceVersion}-${tag}`;
  const firstPath = next.spec!.rules![0]!.http!.paths[0]!;
  if (change === 'path') next.spec!.rules![0]!.http!.paths.push({ ...firstPath, path: `/changed-${tag}`, pathType: 'Prefix' });
  else if (change === 'backend') firstPath.backend.service!.name = firstPath.backend.service!.name.replace(/^web-/, 'api-');
  else if (change === 'annotation')
    next.metadata!.annotations = { ...next.metadata!.annotations, [`${ANNOTATIONS_PREFIX}/proxy-read-timeout`]: '31' };
  else {
    next.metadata!.name = `added-${tag}`;
    next.metadata!.creationTimestamp = new Date(Date.UTC(2027, 0, 1)).toISOString();
    for (const rule of next.spec!.rules!) rule.host = `added-${tag}-${rule.host}`;
    delete next.spec!.tls;
  }
  sink.upsert(next);
  ingresses.set(next.metadata!.name!, next);
}

function printReports(reports: readonly SizeReport[]): void {
  for (const report of reports) {
    process.stdout.write(
      `\n${figure(report.ingresses)} Ingresses (${figure(report.servers)} servers): one change, CPU ms, median of ${report.runs} runs, ` +
        'without the model memo / with it (both with the render cache)\n\n',
    );
    const pair = ({ plain, memo }: Pair): string => `${figure(plain, 1)} / ${figure(memo, 1)}`;
    const sync = (cpu: StepCpu, side: keyof Pair): number => cpu.acceptance + cpu.model[side] + cpu.render[side] + cpu.compare[side];
    printTable(
      [
        'change',
        'acceptance',
        'buildConfiguration',
        'render (servers written)',
        'sameJson',
        'sync without / with the memo',
        'with / without',
      ],
      (Object.keys(CHANGES) as Change[]).map((change) => {
        const cpu = report.medians[change];
        return [
          CHANGES[change],
          figure(cpu.acceptance, 1),
          pair(cpu.model),
          `${pair(cpu.render)} (${figure(cpu.serversWritten)})`,
          pair(cpu.compare),
          `${figure(sync(cpu, 'plain'))} / ${figure(sync(cpu, 'memo'))}`,
          figure(sync(cpu, 'memo') / sync(cpu, 'plain'), 2),
        ];
      }),
    );
    const { builtBackends, finishedBackends, servers } = report.memoSizes;
    process.stdout.write(
      `\nafter the runs: RSS ${figure(report.rssBytes / MIB, 1)} MiB, heap used ${figure(report.heapUsedBytes / MIB, 1)} MiB ` +
        `(both paths' configurations and render caches held); the memo held ${figure(report.memoHeapBytes / MIB, 1)} MiB of heap ` +
        `(entries: ${figure(builtBackends)} built and ${figure(finishedBackends)} finished backends, ${figure(servers)} servers, ` +
        `and a share per Ingress); the render cache's text and line origins ${figure(report.cacheTextBytes / MIB, 1)} MiB\n`,
    );
  }
}

await main();
