// server-snippet is a setting of the server block (the host), not of a
// location. As ingress-nginx decides it: the oldest Ingress of the host that
// sets one supplies the host's snippet; another Ingress's snippet for the same
// host is not applied, and that Ingress gets a Warning saying so (ingress-nginx
// only logs it).
import type { DraftLocation } from './locations.js';
import type { IngressProblem, IngressRef, Server } from './types.js';

/** The snippet a host's server block gets, and the Ingress it comes from (a refusal by nginx is traced to it). */
export interface HostServerSnippet {
  ingress: IngressRef;
  snippet: string;
}

export const SERVER_SNIPPET_IGNORED = 'ServerSnippetIgnored';

/** `{ serverSnippet }` for a server with these draft locations (in Ingress age order), or `{}`. */
export function hostServerSnippet(
  hostname: string,
  locations: readonly DraftLocation[],
  problems: IngressProblem[],
): Pick<Server, 'serverSnippet'> {
  let chosen: HostServerSnippet | undefined;
  const ignored = new Set<string>();
  for (const { ingress, annotations, generated } of locations) {
    const snippet = annotations.serverSnippet;
    if (ingress === undefined || generated || snippet === undefined) continue;
    if (chosen === undefined) chosen = { ingress, snippet };
    else if (!sameIngress(chosen.ingress, ingress) && !ignored.has(`${ingress.namespace}/${ingress.name}`)) {
      ignored.add(`${ingress.namespace}/${ingress.name}`);
      problems.push({
        ingress,
        severity: 'warning',
        reason: SERVER_SNIPPET_IGNORED,
        message: `server-snippet: host ${hostname} already has the one of the older Ingress ${chosen.ingress.namespace}/${chosen.ingress.name}; this one is not applied`,
      });
    }
  }
  return chosen === undefined ? {} : { serverSnippet: chosen };
}

function sameIngress(a: IngressRef, b: IngressRef): boolean {
  return a.namespace === b.namespace && a.name === b.name;
}
