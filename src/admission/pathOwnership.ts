// Which accepted Ingress serves each host's rule paths, indexed by host so an
// admission check reads only the hosts of the Ingress under review. Built once
// per sync (lazily, on the first review after it), not per request.
import { objectKey } from '../kube/objects.js';
import type { AcceptedIngress } from '../model/buildConfiguration.js';
import { rulePaths } from '../model/ingressRules.js';
import type { DraftLocation } from '../model/locations.js';
import type { LocationAnnotations } from '../model/types.js';

/** One rule path of an accepted Ingress. */
export interface OwnedPath {
  path: string;
  type: DraftLocation['type'];
  /** `namespace/name` of the Ingress. */
  owner: string;
  canary: boolean;
  annotations: LocationAnnotations;
  /** Always false: owned paths come from rules (for isRegexHost). */
  generated: false;
  accepted: AcceptedIngress;
}

export class PathOwnership {
  private readonly byHost = new Map<string, OwnedPath[]>();

  constructor(ingresses: readonly AcceptedIngress[]) {
    for (const accepted of ingresses) {
      for (const [host, owned] of ownedPaths(accepted)) {
        const entries = this.byHost.get(host);
        if (entries) entries.push(...owned);
        else this.byHost.set(host, owned);
      }
    }
  }

  /** The rule paths on `host` of every accepted Ingress except `exceptOwner` (the version under review). */
  pathsOn(host: string, exceptOwner: string): OwnedPath[] {
    return (this.byHost.get(host) ?? []).filter((owned) => owned.owner !== exceptOwner);
  }
}

/** An Ingress's rule paths, by host. */
export function ownedPaths(accepted: AcceptedIngress): Map<string, OwnedPath[]> {
  const owner = objectKey(accepted.ingress);
  const { location, canary } = accepted.annotations;
  const byHost = new Map<string, OwnedPath[]>();
  for (const { host, path, type } of rulePaths(accepted.ingress)) {
    const owned: OwnedPath = { path, type, owner, canary: canary !== undefined, annotations: location, generated: false, accepted };
    const entries = byHost.get(host);
    if (entries) entries.push(owned);
    else byHost.set(host, [owned]);
  }
  return byHost;
}
