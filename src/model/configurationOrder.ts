// The order of a configuration's lists, in one place: a whole model run sorts
// by them, and a run from the last one's result (memo/isolatedChanges.ts)
// merges into lists kept in them, so both give the same lists.
import { CATCH_ALL } from './ingressRules.js';
import type { Backend, Certificate, IngressProblem, Server } from './types.js';

/** The catch-all first, then by hostname. */
export function serverOrder(a: Pick<Server, 'hostname'>, b: Pick<Server, 'hostname'>): number {
  if (a.hostname === CATCH_ALL) return -1;
  if (b.hostname === CATCH_ALL) return 1;
  return a.hostname < b.hostname ? -1 : 1;
}

export function backendOrder(a: Backend, b: Backend): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function certificateOrder(a: Certificate, b: Certificate): number {
  return a.id < b.id ? -1 : 1;
}

/** By Ingress (namespace, then name); a stable sort keeps each Ingress's in the order the run found them. */
export function byIngress(a: IngressProblem, b: IngressProblem): number {
  const x = a.ingress;
  const y = b.ingress;
  if (x.namespace !== y.namespace) return x.namespace < y.namespace ? -1 : 1;
  return x.name < y.name ? -1 : x.name > y.name ? 1 : 0;
}
