// How glibc's malloc in nginx's master hands memory back after a reload.
//
// The master parses nginx.conf into a cycle of 16 KiB pool blocks and larger
// allocations, forks the workers, and at a reload parses the new file into a
// new cycle while the old one is still live, then frees the old one. With
// glibc's defaults those blocks come from the brk heap; the old cycle's
// memory, below the new one's, stays resident in the master as free chunks,
// and the next workers are forked with it. At 10,000 synthetic Ingresses
// nginx's PSS went from 941 MiB after start to 1,808 MiB after the first
// reload and stayed there (1,000: 125 -> 209 MiB).
//
// From 4 KiB, allocations are their own mappings (glibc's mmap threshold,
// fixed, so it does not adapt upwards), so the old cycle's go back to the
// kernel when it is freed: after start 1,096 MiB, after 1, 2 and 3 reloads
// 1,106, 1,107 and 1,104 MiB (docs/scale.md). The environment only reaches
// glibc at exec, so it is set for the master; the workers set glibc's
// defaults again before their first request (lua/portico/worker_malloc.lua),
// since there a request's 4 KiB pool would cost a mapping each time.
//
// A mapped chunk carries glibc's header, so each 16 KiB pool block took 20
// KiB. native/pool_blocks.c, preloaded into the master when scripts/setup.sh
// or the Dockerfile installed it, serves those blocks from one region
// instead: nginx's memory at 10,000 Ingresses 692 -> 575 MiB PSS, a reload
// 2.1-2.9 -> 1.5-1.9 s (docs/scale.md, "nginx's pool blocks").
import { existsSync } from 'node:fs';

/** Where scripts/setup.sh and the Dockerfile install native/pool_blocks.c's build. */
export const POOL_BLOCKS_LIBRARY = '/usr/lib/portico/libportico_pool_blocks.so';

const MASTER_MALLOC_SETTINGS = {
  MALLOC_MMAP_THRESHOLD_: String(4 * 1024),
  // glibc's default cap is 65,536 mappings; a cycle at 10,000 Ingresses needs more than that.
  MALLOC_MMAP_MAX_: String(4 * 1024 * 1024),
} as const;

/** The master's environment: Portico's own, glibc's settings above, and the pool-block allocator when installed. */
export function masterEnvironment(environment: NodeJS.ProcessEnv = process.env, poolBlocks = POOL_BLOCKS_LIBRARY): NodeJS.ProcessEnv {
  const master = { ...environment, ...MASTER_MALLOC_SETTINGS };
  if (!existsSync(poolBlocks)) return master;
  const preloaded = environment.LD_PRELOAD;
  return { ...master, LD_PRELOAD: preloaded ? `${poolBlocks}:${preloaded}` : poolBlocks };
}
