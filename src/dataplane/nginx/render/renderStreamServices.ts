// The TCP and UDP services' servers and upstreams in the stream block.
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderScope } from './renderScope.js';

export function renderStreamServices(_stream: ConfigBuilder, _scope: RenderScope): void {
  // Filled in by the TCP/UDP services change.
}
