// The main context's worker directives beyond worker_processes, and the
// events block's per-client debug logging (workerSettings.ts).
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { MIN_WORKER_OPEN_FILES } from '../../../model/settings/keys/workerSettings.js';
import { raw } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderContext } from './renderContext.js';

export function renderWorkerLimits(main: ConfigBuilder, settings: GlobalSettings, context: RenderContext): void {
  const [first, ...masks] = settings.workerCpuAffinity;
  if (first !== undefined) {
    const mode = first === 'auto' ? [raw.keyword('auto')] : [raw.cpuMask(first)];
    main.directive('worker_cpu_affinity', ...mode, ...masks.map((mask) => raw.cpuMask(mask)));
  }
  const openFiles = workerOpenFiles(settings, context);
  if (openFiles !== undefined) main.directive('worker_rlimit_nofile', raw.integer(openFiles));
}

/** What ingress-nginx leaves below the limit ("to avoid consuming all the FDs available"). */
const MASTER_RESERVED_FILES = 1024;

/**
 * max-worker-open-files, or for 0 ingress-nginx's derived value: the hard
 * open-files limit less 1024 for the master's own files, at least 1024. When
 * the limit is unknown the workers keep the one they inherit.
 */
function workerOpenFiles(settings: GlobalSettings, context: RenderContext): number | undefined {
  if (settings.maxWorkerOpenFiles > 0) return settings.maxWorkerOpenFiles;
  if (context.openFilesLimit === undefined) return undefined;
  return Math.max(MIN_WORKER_OPEN_FILES, context.openFilesLimit - MASTER_RESERVED_FILES);
}

export function renderDebugConnections(events: ConfigBuilder, settings: GlobalSettings): void {
  for (const address of settings.debugConnections) events.directive('debug_connection', raw.cidr(address));
}
