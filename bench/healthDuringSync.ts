/**
 * Issue 18's probe goal: `/healthz` answers within 100 ms at all times, however
 * big the sync. Portico runs in manifest mode on the synthetic cluster
 * (support/syntheticManifests.ts); after it serves, one Ingress file is edited
 * `--edits` times, each a full sync (model and render hold the main thread for
 * seconds at 5,000 Ingresses), while one client polls `/healthz` (answered by
 * the health endpoint's own thread) and `/metrics` (answered by the main
 * thread, so the baseline: what /healthz took before it moved) in turn:
 *   node --import tsx bench/healthDuringSync.ts [--ingresses 5000] [--edits 3]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { httpGet } from '../test/support/httpGet.js';
import { appliedConfigurations } from '../test/support/porticoLog.js';
import { startPortico } from '../test/support/porticoProcess.js';
import { describeMachine } from './support/machine.js';
import { positiveInteger } from './support/options.js';
import { median, percentile } from './support/statistics.js';
import { writeSyntheticManifests } from './support/syntheticManifests.js';
import { figure, printTable } from './support/table.js';

/** Per edit: its sync and reload at 5,000 Ingresses take tens of seconds on 2 cores. */
const EDIT_TIMEOUT_MS = 300_000;
const PROBE_TIMEOUT_MS = 30_000;

const { values } = parseArgs({ options: { ingresses: { type: 'string', default: '5000' }, edits: { type: 'string', default: '3' } } });
const ingresses = positiveInteger('--ingresses', values.ingresses);
const edits = positiveInteger('--edits', values.edits);

const dir = await mkdtemp(join(tmpdir(), 'portico-bench-health-'));
const latencies = { '/healthz': [] as number[], '/metrics': [] as number[] };
let failures = 0;
try {
  const { texts } = await writeSyntheticManifests(dir, ingresses);
  const portico = await startPortico([`--manifests=${dir}`], { readyTimeoutMs: EDIT_TIMEOUT_MS });
  try {
    const applied = (): number => appliedConfigurations(portico.logTail(100_000)).lines.length;
    for (let edit = 0; edit < edits; edit++) {
      const before = applied();
      await writeFile(join(dir, 'ingress-1.yaml'), texts[1]!.replace(/path: \/api/, `path: /api-edit-${edit}`));
      const deadline = Date.now() + EDIT_TIMEOUT_MS;
      // Polls until the edit's configuration is applied (its sync, render and reload), bounded by the deadline.
      while (applied() === before && Date.now() < deadline) {
        for (const path of ['/healthz', '/metrics'] as const) {
          const started = performance.now();
          const result = await httpGet({ port: portico.ports.healthz, path, timeoutMs: PROBE_TIMEOUT_MS }).catch(() => undefined);
          if (result?.status !== 200) failures++;
          latencies[path].push(performance.now() - started);
        }
      }
    }
  } finally {
    await portico.stop();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

process.stdout.write(
  `${describeMachine()}\n${figure(ingresses)} Ingresses, ${edits} edits (each a full sync); ${failures} probes not 200\n\n`,
);
printTable(
  ['endpoint (served by)', 'probes', 'median ms', 'p99 ms', 'max ms'],
  (['/healthz', '/metrics'] as const).map((path) => [
    `${path} (${path === '/healthz' ? 'its own thread' : 'the main thread'})`,
    figure(latencies[path].length),
    figure(median(latencies[path]), 1),
    figure(percentile(latencies[path], 99), 1),
    figure(Math.max(...latencies[path]), 1),
  ]),
);
