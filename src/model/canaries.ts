// ingress-nginx's canary merge. A canary Ingress has no locations of its own:
// each of its rule paths looks for the primary location, the one a
// non-canary Ingress has at the same host, path and match, and its backend
// becomes the canary of that location's backend. The canary is the backend's,
// so it applies on every location that routes to that backend, as in
// ingress-nginx. One canary per primary backend: the oldest canary Ingress
// wins. ingress-nginx's admission refuses other overlaps; here they merge.
import type { AcceptedIngress } from './buildConfiguration.js';
import { backendName } from './backends.js';
import type { BackendTable } from './backendTable.js';
import { ingressRef, rulePaths, sameIngress } from './ingressRules.js';
import { ruleDraftAt, type DraftLocation } from './locations.js';
import type { CanaryPolicy, IngressProblem, IngressRef } from './types.js';

export interface CanaryIngress {
  accepted: AcceptedIngress;
  /** `accepted.annotations.canary`, which a canary Ingress has. */
  policy: CanaryPolicy;
  /** Its position among all Ingresses, oldest first (for the balancing of its backends). */
  rank: number;
}

/** `canaries` oldest first; `draftsOf` gives a host's locations from non-canary Ingresses. */
export function mergeCanaries(
  canaries: readonly CanaryIngress[],
  draftsOf: (host: string) => readonly DraftLocation[],
  backends: BackendTable,
  problems: IngressProblem[],
): void {
  /** Per primary backend: its canary backend and the Ingress that made it so. */
  const merged = new Map<string, { canary: string; ingress: IngressRef }>();
  for (const { accepted, policy, rank } of canaries) {
    const ref = ingressRef(accepted.ingress);
    const ignored = (reason: string, message: string) => problems.push({ ingress: ref, severity: 'info', reason, message });
    if (accepted.ingress.spec?.defaultBackend) {
      ignored('OrphanCanary', "a canary's spec.defaultBackend is ignored: canaries join primaries by host and path only");
    }
    for (const rulePath of rulePaths(accepted.ingress)) {
      const where = `path ${rulePath.path} (${rulePath.type}) on host ${rulePath.host}`;
      const primary = ruleDraftAt(draftsOf(rulePath.host), rulePath)?.backend;
      if (primary === undefined) {
        ignored('OrphanCanary', `${where} has no primary: no Ingress that is not a canary has that path and pathType; ignored`);
        continue;
      }
      const canary = backendName(rulePath.service);
      if (canary === primary) {
        ignored('CanaryIgnored', `${where}: the canary's backend ${canary} is the primary's own; ignored`);
        continue;
      }
      const earlier = merged.get(primary);
      if (earlier && !(earlier.canary === canary && sameIngress(earlier.ingress, ref))) {
        const owner = `Ingress ${earlier.ingress.namespace}/${earlier.ingress.name}`;
        ignored(
          'CanaryConflict',
          `${where}: backend ${primary} already has the canary ${earlier.canary} (from ${owner}; the oldest wins); ignored`,
        );
        continue;
      }
      backends.add(rulePath.service, { rank, ingress: ref, balancing: accepted.annotations.balancing });
      merged.set(primary, { canary, ingress: ref });
      backends.setCanary(primary, { backend: canary, ...policy });
    }
  }
}
