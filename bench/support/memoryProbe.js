// Preloaded into the controller by bench/controllerMemory.ts (NODE_OPTIONS
// `--import` this file, with `--expose-gc`), never by Portico itself: on
// SIGUSR2 it reads `request.json` from PORTICO_MEMORY_PROBE_DIR ({ id,
// snapshot }), takes process.memoryUsage() as it is, again after a full
// garbage collection, and V8's heap statistics, writes them as `<id>.json`
// (under a temporary name first, so the bench never reads half of it), and
// with `snapshot` writes a heap snapshot `<id>.heapsnapshot` first. A file
// the bench asks for, not a port: the probe opens nothing in the controller.
// PORTICO_MEMORY_PROBE_V8_FLAGS are V8 flags set as the controller starts
// (v8.setFlagsFromString, as the controller could set them itself): for the
// bench's comparisons of V8's heap settings.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString, writeHeapSnapshot } from 'node:v8';

const dir = process.env.PORTICO_MEMORY_PROBE_DIR;
for (const flag of (process.env.PORTICO_MEMORY_PROBE_V8_FLAGS ?? '').split(' ').filter(Boolean)) setFlagsFromString(flag);
if (dir) {
  process.on('SIGUSR2', () => {
    const { id, snapshot } = JSON.parse(readFileSync(join(dir, 'request.json'), 'utf8'));
    const asIs = process.memoryUsage();
    globalThis.gc?.();
    const collected = process.memoryUsage();
    if (snapshot) writeHeapSnapshot(join(dir, `${id}.heapsnapshot`));
    const answer = {
      asIs,
      collected,
      heap: getHeapStatistics(),
      spaces: getHeapSpaceStatistics().map((space) => ({
        name: space.space_name,
        size: space.space_size,
        used: space.space_used_size,
      })),
    };
    writeFileSync(join(dir, `.${id}.json`), JSON.stringify(answer));
    renameSync(join(dir, `.${id}.json`), join(dir, `${id}.json`));
  });
}
