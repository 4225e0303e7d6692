import type { Backend, Configuration } from '../../../model/types.js';
import { describeValue } from './arguments.js';
import { OriginTable } from './configOrigins.js';
import type { RenderContext } from './renderContext.js';
import type { ServerTextRender } from './serverTextCache.js';

/** Backends by name (a server's render records which it reads: serverTextCache.ts). */
export interface BackendLookup {
  get(name: string): Backend | undefined;
}

/** What every section renderer reads: the configuration, the runtime context, and backends by name (for their Service). */
export interface RenderScope {
  readonly configuration: Configuration;
  readonly context: RenderContext;
  readonly backends: BackendLookup;
  /** The origins the rendered nodes name. */
  readonly origins: OriginTable;
  /** The render cache's servers, when the render uses it. */
  readonly serverTexts?: ServerTextRender;
}

export function createRenderScope(configuration: Configuration, context: RenderContext, serverTexts?: ServerTextRender): RenderScope {
  const backends = new Map<string, Backend>();
  for (const backend of configuration.backends) {
    // The Lua modules refuse a backends document with two of one name; which one was meant is the model's bug to report.
    if (backends.has(backend.name)) throw new Error(`duplicate backend name: ${describeValue(backend.name)}`);
    backends.set(backend.name, backend);
  }
  return { configuration, context, backends, origins: new OriginTable(), serverTexts };
}
