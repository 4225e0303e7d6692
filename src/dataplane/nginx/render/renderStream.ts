// nginx's stream block (docs/stream.md), from Debian's libnginx-mod-stream,
// loaded only when something needs it: TCP/UDP services
// (renderStreamServices.ts), SSL passthrough (renderSslPassthrough.ts) or a
// stream snippet. Stream endpoints are written here, not pushed: Debian 12
// has no stream Lua module, so a change of them reloads nginx.
import { posix } from 'node:path';
import type { Configuration } from '../../../model/types.js';
import { filePath } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderContext } from './renderContext.js';
import type { RenderScope } from './renderScope.js';
import { renderSslPassthroughStream } from './renderSslPassthrough.js';
import { renderStreamServices } from './renderStreamServices.js';

const STREAM_MODULE_FILE = 'ngx_stream_module.so';

/** Whether nginx.conf has a stream block: TCP/UDP services, SSL passthrough, or a stream snippet. */
export function usesStream(configuration: Configuration): boolean {
  const stream = configuration.stream;
  const parts = stream !== undefined && (stream.services.length > 0 || stream.sslPassthrough || stream.snippets.length > 0);
  return parts || configuration.settings.streamSnippet !== undefined;
}

/** The main context's `load_module` of the stream module, before the block that needs it. */
export function renderStreamModule(main: ConfigBuilder, configuration: Configuration, context: RenderContext): void {
  if (usesStream(configuration)) main.directive('load_module', filePath(posix.join(context.modulesDir, STREAM_MODULE_FILE)));
}

/** The stream block, after the http block. */
export function renderStream(main: ConfigBuilder, scope: RenderScope): void {
  if (!usesStream(scope.configuration)) return;
  main.block('stream', [], (stream) => {
    renderStreamServices(stream, scope);
    renderSslPassthroughStream(stream, scope);
  });
}
