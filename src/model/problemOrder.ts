// The order of a model run's problems: by Ingress (namespace, then name), each
// Ingress's in the order the run found them. A run from the last one's result
// (memo/isolatedChanges.ts) then gives the list a whole run gives.
import type { IngressProblem } from './types.js';

export function byIngress(a: IngressProblem, b: IngressProblem): number {
  const x = a.ingress;
  const y = b.ingress;
  if (x.namespace !== y.namespace) return x.namespace < y.namespace ? -1 : 1;
  return x.name < y.name ? -1 : x.name > y.name ? 1 : 0;
}
