// The backends a configuration names, each built once. As in ingress-nginx,
// where the first Ingress to create an upstream configures it, a backend's
// balancing comes from the oldest Ingress that routes to it, whatever the
// order the routes are found in (canaries are merged after every primary).
import { isDeepStrictEqual } from 'node:util';
import { backendName, buildBackend, type EndpointPolicy, type ServiceLookup, type ServiceReference } from './backends.js';
import { backendOrder } from './configurationOrder.js';
import { refuseSelfEndpoints } from './selfAddress.js';
import { clusterIpEndpoint } from './serviceUpstream.js';
import { finishedBackend } from './memo/finishedBackendMemo.js';
import type { ModelMemo } from './memo/modelMemo.js';
import type { GlobalSettings } from './settings/globalSettings.js';
import type { Backend, Balancing, Canary, Endpoint, IngressProblem, IngressRef } from './types.js';

/** An Ingress routing to a backend, with the balancing it asks for. */
export interface BalancingClaim {
  /** The Ingress's position, oldest first: the lowest rank wins. */
  rank: number;
  ingress: IngressRef;
  balancing: Balancing;
}

/** The balancing of a backend no Ingress routes to: the ConfigMap's load-balance. */
export function unclaimedBalancing(settings: GlobalSettings): Balancing {
  return { algorithm: settings.loadBalance, hashBy: undefined, affinity: undefined };
}

export class BackendTable {
  private readonly backends = new Map<string, Backend>();
  private readonly claims = new Map<string, BalancingClaim[]>();
  private readonly canaries = new Map<string, Canary>();
  /** Backend name → why endpoints of its Service were left out. */
  private readonly refused = new Map<string, readonly string[]>();

  /**
   * `unclaimed`: the balancing of backends no Ingress routes to (such as --default-backend-service's); `warnings` gets the
   * endpoints left out; `memo`: the last run's backends, reused where they were made from the same inputs.
   */
  constructor(
    private readonly lookup: ServiceLookup,
    private readonly unclaimed: Balancing,
    private readonly policy: EndpointPolicy,
    private readonly warnings: string[],
    private readonly memo?: ModelMemo,
  ) {}

  /** The name of the Service port's backend (`name`, when known), built on first use; `claim` when an Ingress routes to it. */
  add(service: ServiceReference, claim?: BalancingClaim, name = backendName(service)): string {
    if (!this.backends.has(name)) {
      const built = this.memo
        ? this.memo.builtBackends.build(name, service, this.lookup, this.unclaimed, this.policy, this.warnings)
        : buildBackend(service, this.lookup, this.unclaimed, this.policy, this.warnings);
      this.backends.set(name, built.backend);
      if (built.refused.length > 0) this.refused.set(name, built.refused);
    }
    if (claim) {
      // Appended in place: thousands of routes may claim one Service's backend, and copying made that quadratic.
      const claims = this.claims.get(name);
      if (claims) claims.push(claim);
      else this.claims.set(name, [claim]);
    }
    return name;
  }

  /** Which backend `primary` (a name from add) sends the requests its canary policy picks to. */
  setCanary(primary: string, canary: Canary): void {
    this.canaries.set(primary, canary);
  }

  /**
   * The backends by name; newer Ingresses whose balancing lost to an older one's are told,
   * and every Ingress routing to a backend whose endpoints were refused (`warnings` when none does).
   */
  finish(problems: IngressProblem[], warnings: string[]): Backend[] {
    this.reportRefused(problems, warnings);
    const balancings = new Map<string, Balancing>();
    for (const backend of this.backends.values()) {
      balancings.set(backend.name, this.balancingOf(backend.name, problems) ?? backend.balancing);
    }
    // As ingress-nginx's merge, the primary's affinity (even none) replaces the canary's own.
    for (const [primary, canary] of this.canaries) {
      const canaryBalancing = balancings.get(canary.backend);
      if (canary.affinityBehavior !== 'sticky' || !canaryBalancing) continue;
      balancings.set(canary.backend, { ...canaryBalancing, affinity: balancings.get(primary)?.affinity });
    }
    const finish = this.memo ? this.memo.finishedBackends.finish.bind(this.memo.finishedBackends) : finishedBackend;
    return [...this.backends.values()]
      .map((backend) =>
        finish(
          backend,
          this.endpointsOf(backend, balancings.get(backend.name), problems),
          balancings.get(backend.name) ?? backend.balancing,
          this.canaries.get(backend.name),
        ),
      )
      .sort(backendOrder);
  }

  /** The Service's endpoints, or with service-upstream its ClusterIP (never Portico itself); its Ingresses are told when it has none. */
  private endpointsOf(backend: Backend, balancing: Balancing | undefined, problems: IngressProblem[]): Endpoint[] {
    if (balancing?.serviceUpstream !== true) return backend.endpoints;
    const found = clusterIpEndpoint(backend.service, this.lookup);
    const checked = 'endpoint' in found ? refuseSelfEndpoints([found.endpoint], this.policy.guard) : undefined;
    if (checked !== undefined && checked.refused.length === 0) return checked.endpoints;
    const message =
      checked === undefined
        ? `service-upstream: ${'unusable' in found ? found.unusable : ''}; proxying to the Service's endpoints instead`
        : `service-upstream: the ClusterIP refused: ${checked.refused.join('; ')}`;
    for (const ingress of this.claimingIngresses(backend.name))
      problems.push({ ingress, severity: 'warning', reason: 'ServiceUpstream', message });
    return checked === undefined ? backend.endpoints : [];
  }

  private claimingIngresses(name: string): IngressRef[] {
    return [
      ...new Map(
        (this.claims.get(name) ?? []).map((claim) => [`${claim.ingress.namespace}/${claim.ingress.name}`, claim.ingress]),
      ).values(),
    ];
  }

  private reportRefused(problems: IngressProblem[], warnings: string[]): void {
    for (const [name, messages] of this.refused) {
      const backend = this.backends.get(name)!.service;
      const message = `backend ${name} (Service ${backend.namespace}/${backend.name}) refused: ${messages.join('; ')}`;
      const ingresses = new Map(
        (this.claims.get(name) ?? []).map((claim) => [`${claim.ingress.namespace}/${claim.ingress.name}`, claim.ingress]),
      );
      if (ingresses.size === 0) warnings.push(message);
      for (const ingress of ingresses.values()) problems.push({ ingress, severity: 'warning', reason: 'EndpointRefused', message });
    }
  }

  private balancingOf(name: string, problems: IngressProblem[]): Balancing | undefined {
    const claims = this.claims.get(name) ?? [];
    // Claims that all share one Balancing object (one Ingress's paths, most backends) agree: that object, no conflict.
    const only = claims[0]?.balancing;
    if (only !== undefined && 'affinity' in only && claims.every((claim) => claim.balancing === only)) return only;
    const [winner, ...others] = [...claims].sort((a, b) => a.rank - b.rank);
    if (!winner) return undefined;
    // As ingress-nginx, the affinity of the oldest Ingress that asks for one; affinityScope.ts limits where its cookie is set.
    const affinity = winner.balancing.affinity ?? others.find((claim) => claim.balancing.affinity !== undefined)?.balancing.affinity;
    // The winner's own object when it is the same value: an unchanged backend then stays the same object (memo/finishedBackendMemo.ts).
    const balancing: Balancing =
      'affinity' in winner.balancing && winner.balancing.affinity === affinity ? winner.balancing : { ...winner.balancing, affinity };
    const told = new Set<number>([winner.rank]);
    for (const claim of others) {
      // An Ingress without affinity asks for none, and its paths set no cookie: only the other settings can conflict.
      const asked = claim.balancing.affinity === undefined ? { ...claim.balancing, affinity } : claim.balancing;
      if (told.has(claim.rank) || isDeepStrictEqual(asked, balancing)) continue;
      told.add(claim.rank);
      problems.push({
        ingress: claim.ingress,
        severity: 'info',
        reason: 'BalancingConflict',
        message:
          `backend ${name} keeps the load-balance, upstream-hash-by and affinity settings of the older Ingress ` +
          `${winner.ingress.namespace}/${winner.ingress.name}`,
      });
    }
    return balancing;
  }
}
