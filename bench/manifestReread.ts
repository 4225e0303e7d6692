/**
 * Manifest mode's cost of one change in a big folder (issue 18: "re-reads the
 * whole folder on each change, 3.7 s for 17.9 MiB"):
 *   node --import tsx bench/manifestReread.ts [--ingresses 10000] [--runs 5]
 *
 * The synthetic cluster (support/syntheticCluster.ts) is written as one file
 * per Ingress (the Ingress, its Services, EndpointSlices and Secret). Side by
 * side, per run: reading the whole folder again (a fresh ManifestFileCache, as
 * every change did before) and reading it after one file changed (the cache of
 * the previous pass), each followed by the store's replace of every kind, as
 * ManifestSource delivers it. Medians of `--runs`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { KINDS, type Kind, type KindTypes } from '../src/kube/objects.js';
import { ManifestFileCache, type ManifestRead } from '../src/sources/manifests/manifestFileCache.js';
import type { ManifestObject } from '../src/sources/manifests/parseManifests.js';
import { listManifestFiles } from '../src/sources/manifests/manifestSource.js';
import { Store } from '../src/store/store.js';
import { describeMachine } from './support/machine.js';
import { positiveInteger } from './support/options.js';
import { median } from './support/statistics.js';
import { STORE_SETTINGS } from './support/syntheticCluster.js';
import { writeSyntheticManifests } from './support/syntheticManifests.js';
import { figure, printTable } from './support/table.js';

/** Files this recent are read again on every pass (manifestFileCache.ts): wait until the written ones are older. */
const STAMP_TRUST_MS = 2_100;

const { values } = parseArgs({ options: { ingresses: { type: 'string', default: '10000' }, runs: { type: 'string', default: '5' } } });
const ingresses = positiveInteger('--ingresses', values.ingresses);
const runs = positiveInteger('--runs', values.runs);

/** What ManifestSource.load hands the store: each kind's complete set. */
function deliver(store: Store, pass: ManifestRead): void {
  const objects = pass.files.flatMap((file) => file.parsed?.objects ?? []);
  for (const kind of KINDS) deliverKind(store, kind, objects);
}

function deliverKind<K extends Kind>(store: Store, kind: K, objects: readonly ManifestObject[]): void {
  // Tagged with `kind`, so each object is a KindTypes[K] (as ManifestSource.deliver).
  store.sink(kind).replace(objects.filter((entry) => entry.kind === kind).map((entry) => entry.object as KindTypes[K]));
}

function timed(work: () => ManifestRead, store: Store): { ms: number; pass: ManifestRead } {
  const started = performance.now();
  const pass = work();
  deliver(store, pass);
  return { ms: performance.now() - started, pass };
}

const dir = await mkdtemp(join(tmpdir(), 'portico-bench-manifests-'));
try {
  const { texts, bytes } = await writeSyntheticManifests(dir, ingresses);
  await sleep(STAMP_TRUST_MS);

  const store = new Store(STORE_SETTINGS);
  const cache = new ManifestFileCache();
  const start = timed(() => cache.read(listManifestFiles(dir)), store).pass; // the start's load
  const errors = start.files.flatMap((file) => file.parsed?.errors.map((error) => error.message) ?? [file.readError]);
  if (errors.length > 0 || store.ingresses().length !== ingresses) throw new Error(`the folder did not load: ${errors[0]}`);
  const whole: number[] = [];
  const incremental: number[] = [];
  let work = { read: 0, parsed: 0 };
  for (let run = 0; run < runs; run++) {
    whole.push(timed(() => new ManifestFileCache().read(listManifestFiles(dir)), store).ms);
    const edited = join(dir, `ingress-${run}.yaml`);
    await writeFile(edited, `${texts[run]}# edit ${run}\n`);
    const { ms, pass } = timed(() => cache.read(listManifestFiles(dir)), store);
    incremental.push(ms);
    work = { read: pass.read, parsed: pass.parsed };
  }
  process.stdout.write(
    `${describeMachine()}\n${figure(texts.length + 1)} files, ${figure(bytes / 2 ** 20, 1)} MiB; medians of ${runs} runs\n\n`,
  );
  printTable(
    ['one file changed', 'ms', 'files read', 'files parsed'],
    [
      ['whole folder read again (before)', figure(median(whole)), figure(texts.length + 1), figure(texts.length + 1)],
      ['only the changed file (now)', figure(median(incremental)), figure(work.read), figure(work.parsed)],
      ['ratio now / before', figure(median(incremental) / median(whole), 3), '', ''],
    ],
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
