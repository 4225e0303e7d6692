// A backend as buildBackend builds it (its Service port's ready endpoints, the
// self-endpoint guard's refusals, the EndpointSlice entries dropped), kept per
// backend name with everything it read: the Service object, the Service's
// EndpointSlice objects (in the store's order), the endpoint policy and the
// balancing of unclaimed backends. Store objects are replaced, never changed in
// place, when they change (ObjectCache.upsert), and the policy is the
// controller's own for its whole life, so the same objects mean the same
// backend. A lookup that tells its service generation (Store) saves the
// lookups themselves while it is the one of the entry's check: a sync after
// an Ingress edit then reads no Service (20,000 lookups at 10,000 Ingresses).
import type { EndpointSlice, Service } from '../../kube/objects.js';
import { buildBackend, type EndpointPolicy, type ServiceLookup, type ServiceReference } from '../backends.js';
import type { Backend, Balancing } from '../types.js';
import { GenerationMap } from './generationMap.js';

export interface BuiltBackend {
  backend: Backend;
  refused: readonly string[];
}

interface Entry {
  /** The lookup and its serviceGeneration when the objects below were last found to be its answers. */
  lookup: ServiceLookup;
  generation: number | undefined;
  service: Service | undefined;
  slices: readonly EndpointSlice[];
  policy: EndpointPolicy;
  unclaimed: Balancing;
  built: BuiltBackend;
  /** What buildBackend told `dropped`, told again at each use. */
  dropped: readonly string[];
}

export class BuiltBackendMemo {
  readonly #entries = new GenerationMap<string, Entry>();

  /** buildBackend(ref, lookup, unclaimed, policy, dropped), from the memo when it read the same objects. */
  build(
    name: string,
    ref: ServiceReference,
    lookup: ServiceLookup,
    unclaimed: Balancing,
    policy: EndpointPolicy,
    dropped: string[],
  ): BuiltBackend {
    const generation = lookup.serviceGeneration?.();
    let entry = this.#entries.get(name);
    if (
      entry === undefined ||
      entry.policy !== policy ||
      !sameBalancing(entry.unclaimed, unclaimed) ||
      !this.#stillRead(entry, ref, lookup, generation)
    ) {
      const serviceKey = `${ref.namespace}/${ref.name}`;
      const service = lookup.service(serviceKey);
      const slices = lookup.endpointSlicesOfService(serviceKey);
      const told: string[] = [];
      const { backend, refused } = buildBackend(ref, lookup, unclaimed, policy, told);
      // Most backends drop and refuse nothing: one empty list for all of them (20,000 at 10,000 Ingresses).
      entry = {
        lookup,
        generation,
        service,
        slices,
        policy,
        unclaimed,
        built: { backend, refused: orNone(refused) },
        dropped: orNone(told),
      };
    }
    this.#entries.keep(name, entry);
    if (entry.dropped.length > 0) dropped.push(...entry.dropped);
    return entry.built;
  }

  /** Whether the lookup still answers the entry's Service and EndpointSlices: at once while its generation holds. */
  #stillRead(entry: Entry, ref: ServiceReference, lookup: ServiceLookup, generation: number | undefined): boolean {
    if (generation !== undefined && entry.lookup === lookup && entry.generation === generation) return true;
    const serviceKey = `${ref.namespace}/${ref.name}`;
    if (entry.service !== lookup.service(serviceKey) || !sameItems(entry.slices, lookup.endpointSlicesOfService(serviceKey))) return false;
    entry.lookup = lookup;
    entry.generation = generation;
    return true;
  }

  /** Why endpoints of the backend were refused when it was last built (undefined: not built). */
  refused(name: string): readonly string[] | undefined {
    return this.#entries.get(name)?.built.refused;
  }

  rotate(): void {
    this.#entries.rotate();
  }

  get size(): number {
    return this.#entries.size;
  }
}

const NONE: readonly string[] = Object.freeze([]);

function orNone(messages: readonly string[]): readonly string[] {
  return messages.length === 0 ? NONE : messages;
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/** The unclaimed balancing is built from the settings at each run: the same fields make the same backend. */
function sameBalancing(a: Balancing, b: Balancing): boolean {
  return a.algorithm === b.algorithm && a.hashBy === b.hashBy && a.affinity === b.affinity && a.serviceUpstream === b.serviceUpstream;
}
