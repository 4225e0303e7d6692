// SSL passthrough's stream server on the HTTPS port (ssl_preread by SNI).
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderScope } from './renderScope.js';

export function renderSslPassthroughStream(_stream: ConfigBuilder, _scope: RenderScope): void {
  // Filled in by the SSL passthrough change.
}
