/**
 * Issue 18's "controller RSS ≤ 400 MiB" at 10,000 Ingresses, and whether it
 * grows: Portico in manifest mode on the synthetic cluster (as bench/soak.ts,
 * without the load), then `--rounds` rounds of the soak's changes (an edit
 * that reloads, an EndpointSlice switch, a certificate rotation: written at
 * once, the round done when its reload is applied). At start and after each
 * round it prints the controller's memory: RSS and where it is (malloc's brk
 * heap, anonymous mappings: V8's heap and malloc's other arenas), and
 * process.memoryUsage() as it is and after a full GC (the heap the controller
 * holds; RSS minus that is slack of the GC and of malloc). The figures come
 * from support/memoryProbe.js, preloaded into the controller for this bench
 * only. `--snapshots` writes heap snapshots at start and at the end into
 * `--snapshot-dir` (kept), for DevTools' comparison view.
 *   node --import tsx bench/controllerMemory.ts [--ingresses 10000] [--rounds 10] [--snapshots] [--snapshot-dir DIR] [--node-options '...']
 * `--node-options` goes to the controller's node (e.g. `--max-semi-space-size=8`), `--v8-flags`
 * to v8.setFlagsFromString as it starts (flags NODE_OPTIONS refuses, e.g. `--heap-growing-percent=20`);
 * MALLOC_ARENA_MAX and the like pass through the environment.
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { eventually } from '../test/support/eventually.js';
import { appliedConfigurations, readFrom } from '../test/support/porticoLog.js';
import { startPortico, type PorticoProcess } from '../test/support/porticoProcess.js';
import { selfSignedCertificate } from '../test/support/tlsSecrets.js';
import { describeMachine } from './support/machine.js';
import { processMemoryMap } from './support/nginxMemoryMap.js';
import { cpuSecondsBetween, cpuTicks, type CpuTicks } from './support/processCpu.js';
import { positiveInteger } from './support/options.js';
import { pickSoakSample } from './support/soakManifests.js';
import { writeSyntheticManifests } from './support/syntheticManifests.js';
import { figure, printTable } from './support/table.js';

const { values } = parseArgs({
  options: {
    ingresses: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '10' },
    snapshots: { type: 'boolean', default: false },
    'snapshot-dir': { type: 'string' },
    'node-options': { type: 'string', default: '' },
    'v8-flags': { type: 'string', default: '' },
  },
  strict: true,
});
const ingresses = positiveInteger('--ingresses', values.ingresses);
const rounds = positiveInteger('--rounds', values.rounds);
if (values.snapshots && values['snapshot-dir'] === undefined)
  throw new Error('--snapshots needs --snapshot-dir (the snapshots are kept there)');

/** The first start at 10,000 Ingresses (about 40 s quiet); a round's sync and reload (about 10 s). */
const START_TIMEOUT_MS = 600_000;
const ROUND_TIMEOUT_MS = 300_000;
/** A heap snapshot of 400 MiB of heap takes a minute or more on a busy machine. */
const PROBE_TIMEOUT_MS = 600_000;
const PROBE = fileURLToPath(new URL('./support/memoryProbe.js', import.meta.url));

interface MemoryUsage {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

interface ProbeAnswer {
  asIs: MemoryUsage;
  collected: MemoryUsage;
  spaces: { name: string; size: number; used: number }[];
}

interface Sample {
  label: string;
  /** The controller's CPU time from the start, or from the round's write until its reload was applied (before the probe's GC). */
  cpuSeconds: number;
  answer: ProbeAnswer;
  brkKiB: number;
  anonymousKiB: number;
}

let probes = 0;
/** Asks the controller's probe for its memory (and a heap snapshot): one request at a time. */
async function probe(portico: PorticoProcess, probeDir: string, label: string, snapshot: boolean, since: CpuTicks): Promise<Sample> {
  const cpuSeconds = cpuSecondsBetween(since, await cpuTicks([portico.process.pid])).total;
  const id = `${++probes}-${label.replaceAll(/\W+/g, '-')}`;
  // Before the GC the probe runs: RSS as the sync left it.
  const map = await processMemoryMap(portico.process.pid);
  await writeFile(join(probeDir, 'request.json'), JSON.stringify({ id, snapshot }));
  process.kill(portico.process.pid, 'SIGUSR2');
  const answer = await eventually(async () => JSON.parse(await readFile(join(probeDir, `${id}.json`), 'utf8')) as ProbeAnswer, {
    timeoutMs: PROBE_TIMEOUT_MS,
    intervalMs: 200,
  });
  return { label, cpuSeconds, answer, brkKiB: map?.['brk heap'].rssKiB ?? NaN, anonymousKiB: map?.anonymous.rssKiB ?? NaN };
}

/** Writes the round's three changes at once and waits until a sync after them reloaded nginx. */
async function changeRound(portico: PorticoProcess, sample: ReturnType<typeof pickSoakSample>, round: number): Promise<void> {
  const certificate = await selfSignedCertificate(sample.rotated.hosts());
  sample.edited.setExtraPath(`/memory-round-${round}`);
  sample.edited.setAnnotation('proxy-read-timeout', String(60 + (round % 2)));
  sample.churned.setEndpoints([`10.77.${round % 2}.1`, `10.77.${round % 2}.2`]);
  sample.rotated.setCertificate(certificate.certificatePem, certificate.keyPem);
  const offset = (await stat(portico.process.logPath)).size;
  await Promise.all([sample.edited.write(), sample.churned.write(), sample.rotated.write()]);
  await eventually(
    async () => {
      if (appliedConfigurations(await readFrom(portico.process.logPath, offset)).reloads === 0)
        throw new Error(`round ${round}: not reloaded yet`);
    },
    { timeoutMs: ROUND_TIMEOUT_MS, intervalMs: 100 },
  );
}

const dir = await mkdtemp(join(tmpdir(), 'portico-bench-controller-memory-'));
const manifests = join(dir, 'manifests');
const snapshotDir = values['snapshot-dir'] ?? join(dir, 'probe');
const samples: Sample[] = [];
let syncMs = 0;
try {
  await mkdir(manifests);
  await mkdir(snapshotDir, { recursive: true });
  const { texts } = await writeSyntheticManifests(manifests, ingresses);
  const sample = pickSoakSample(manifests, texts);
  const startedAt = performance.now();
  const portico = await startPortico([`--manifests=${manifests}`], {
    readyTimeoutMs: START_TIMEOUT_MS,
    env: {
      NODE_OPTIONS: `--expose-gc --import=${PROBE} ${values['node-options']}`.trim(),
      PORTICO_MEMORY_PROBE_DIR: snapshotDir,
      PORTICO_MEMORY_PROBE_V8_FLAGS: values['v8-flags'],
    },
  });
  try {
    syncMs = performance.now() - startedAt;
    samples.push(await probe(portico, snapshotDir, 'start', values.snapshots, { user: 0, system: 0 }));
    for (let round = 1; round <= rounds; round++) {
      const before = await cpuTicks([portico.process.pid]);
      await changeRound(portico, sample, round);
      samples.push(await probe(portico, snapshotDir, `round ${round}`, values.snapshots && round === rounds, before));
    }
  } finally {
    await portico.stop();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

const mib = (bytes: number): string => figure(bytes / 1024 / 1024, 1);
process.stdout.write(
  `${describeMachine()}\n${figure(ingresses)} Ingresses (manifest mode), ${rounds} rounds (edit with reload, endpoint switch, certificate); ` +
    `healthy ${figure(syncMs / 1000, 1)} s after the start${values['node-options'] ? `; node ${values['node-options']}` : ''}` +
    `${values['v8-flags'] ? `; V8 ${values['v8-flags']}` : ''}` +
    `${process.env.MALLOC_ARENA_MAX ? `; MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}` : ''}\n\n`,
);
printTable(
  [
    'MiB',
    'CPU s',
    'RSS',
    'brk heap',
    'anonymous',
    'heapTotal',
    'heapUsed',
    'external',
    'arrayBuffers',
    'after GC: RSS',
    'heapTotal',
    'heapUsed',
    'external',
    'old / large-object / new space: used, size',
  ],
  samples.map(({ label, cpuSeconds, answer: { asIs, collected, spaces }, brkKiB, anonymousKiB }) => {
    const space = (name: string): string => {
      const found = spaces.find((each) => each.name === name);
      return found === undefined ? '-' : `${mib(found.used)}, ${mib(found.size)}`;
    };
    return [
      label,
      figure(cpuSeconds, 1),
      mib(asIs.rss),
      mib(brkKiB * 1024),
      mib(anonymousKiB * 1024),
      mib(asIs.heapTotal),
      mib(asIs.heapUsed),
      mib(asIs.external),
      mib(asIs.arrayBuffers),
      mib(collected.rss),
      mib(collected.heapTotal),
      mib(collected.heapUsed),
      mib(collected.external),
      ['old_space', 'large_object_space', 'new_space'].map(space).join(' / '),
    ];
  }),
);
const [first, last] = [samples[0]!, samples.at(-1)!];
process.stdout.write(
  `\nend / start: RSS ×${figure(last.answer.asIs.rss / first.answer.asIs.rss, 2)}, ` +
    `heap used after GC ×${figure(last.answer.collected.heapUsed / first.answer.collected.heapUsed, 2)}\n`,
);
if (values.snapshots) process.stdout.write(`heap snapshots in ${snapshotDir}\n`);
