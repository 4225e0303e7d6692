// A finished backend (its built form with the balancing its Ingresses settled
// on, its endpoints and its canary), kept per name so that an unchanged one is
// the same object at every run: the sync loop's change check (sameJson) and the
// render cache then pass it by identity instead of walking it. What it is made
// from is all compared: the built backend by identity (builtBackendMemo.ts),
// the balancing and canary by value. The endpoints are the built backend's, or
// with service-upstream its Service's ClusterIP: the same Service object and
// policy as the built backend's, and the same balancing, give the same ones.
import { isDeepStrictEqual } from 'node:util';
import type { Backend, Balancing, Canary, Endpoint } from '../types.js';
import { GenerationMap } from './generationMap.js';

interface Entry {
  built: Backend;
  finished: Backend;
}

/** The finished backend, as BackendTable.finish makes it. */
export function finishedBackend(built: Backend, endpoints: Endpoint[], balancing: Balancing, canary: Canary | undefined): Backend {
  // Written out, not spread: V8 makes spread objects larger (20,000 of them at 10,000 Ingresses).
  return { name: built.name, service: built.service, endpoints, balancing, canary };
}

export class FinishedBackendMemo {
  readonly #entries = new GenerationMap<string, Entry>();

  finish(built: Backend, endpoints: Endpoint[], balancing: Balancing, canary: Canary | undefined): Backend {
    let entry = this.#entries.get(built.name);
    const finished = entry?.finished;
    if (
      entry === undefined ||
      finished === undefined ||
      entry.built !== built ||
      !sameValue(finished.balancing, balancing) ||
      !sameValue(finished.canary, canary)
    ) {
      entry = { built, finished: finishedBackend(built, endpoints, balancing, canary) };
    }
    this.#entries.keep(built.name, entry);
    return entry.finished;
  }

  rotate(): void {
    this.#entries.rotate();
  }

  get size(): number {
    return this.#entries.size;
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || isDeepStrictEqual(a, b);
}
