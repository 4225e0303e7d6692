// server-snippet: the admitted line of the host's chosen Ingress, as it is,
// in the server block before its locations. Its lines carry that Ingress's
// origin, so a snippet nginx refuses is traced back to it and contained like
// any refused configuration (an Event on it, the others still loaded).
import type { Server } from '../../../model/types.js';
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderScope } from './renderScope.js';

export function renderServerSnippet(block: ConfigBuilder, server: Server, scope: RenderScope): void {
  const chosen = server.serverSnippet;
  if (chosen === undefined) return;
  block.from(scope.origins.ingress(chosen.ingress), () => block.verbatim(chosen.snippet));
}
