// Which accepted Ingress serves each host's rule paths, indexed by host so an
// admission check reads only the hosts of the Ingress under review. Kept up
// to date after each sync by looking only at the Ingresses whose accepted
// version changed (the acceptance keeps the same object for an unchanged one),
// so a sync caused by, say, an EndpointSlice costs a pass of identity checks.
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

interface Owner {
  accepted: AcceptedIngress;
  hosts: ReadonlyMap<string, OwnedPath[]>;
}

export class PathOwnership {
  private readonly byHost = new Map<string, OwnedPath[]>();
  private readonly owners = new Map<string, Owner>();
  private readonly indexed = new Set<AcceptedIngress>();

  /** Brings the index to `ingresses` (the accepted versions of a sync); says how many versions left and entered it. */
  update(ingresses: readonly AcceptedIngress[]): { removed: number; added: number } {
    // By object identity, which needs no key strings: most syncs change no Ingress.
    const current = new Set(ingresses);
    let removed = 0;
    for (const [key, owner] of this.owners) {
      if (current.has(owner.accepted)) continue;
      this.remove(key, owner);
      removed++;
    }
    let added = 0;
    if (this.owners.size === current.size) return { removed, added };
    for (const accepted of ingresses) {
      if (this.indexed.has(accepted)) continue;
      this.add(objectKey(accepted.ingress), accepted);
      added++;
    }
    return { removed, added };
  }

  /** The rule paths on `host` of every accepted Ingress except `exceptOwner` (the version under review). */
  pathsOn(host: string, exceptOwner: string): OwnedPath[] {
    return (this.byHost.get(host) ?? []).filter((owned) => owned.owner !== exceptOwner);
  }

  private add(key: string, accepted: AcceptedIngress): void {
    const hosts = ownedPaths(accepted);
    this.owners.set(key, { accepted, hosts });
    this.indexed.add(accepted);
    for (const [host, owned] of hosts) {
      const entries = this.byHost.get(host);
      if (entries) entries.push(...owned);
      else this.byHost.set(host, [...owned]);
    }
  }

  private remove(key: string, owner: Owner): void {
    this.owners.delete(key);
    this.indexed.delete(owner.accepted);
    for (const host of owner.hosts.keys()) {
      const remaining = (this.byHost.get(host) ?? []).filter((owned) => owned.owner !== key);
      if (remaining.length > 0) this.byHost.set(host, remaining);
      else this.byHost.delete(host);
    }
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
