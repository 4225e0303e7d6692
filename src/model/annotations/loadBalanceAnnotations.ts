// load-balance: the balancer's algorithm when neither affinity nor
// upstream-hash-by chooses one (ingress-nginx's "loadbalancing" group).
import { parseLoadBalanceAlgorithm } from '../settings/loadBalanceAlgorithm.js';
import type { Balancing, LoadBalanceAlgorithm } from '../types.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup } from './annotationDefinition.js';
import { affinity } from './sessionAffinityAnnotations.js';
import { upstreamHashBy } from './upstreamHashByAnnotations.js';

const loadBalance: AnnotationDefinition<LoadBalanceAlgorithm> = {
  name: 'load-balance',
  risk: 'Low',
  parse: parseLoadBalanceAlgorithm,
};

export const loadBalanceAnnotations: AnnotationGroup<Balancing['algorithm']> = {
  annotations: [loadBalance],
  // ingress-nginx ignores it silently in this case; a user who set both deserves to know.
  issues: (values) => {
    const winner =
      values.get(affinity) !== undefined ? 'affinity' : values.get(upstreamHashBy) !== undefined ? 'upstream-hash-by' : undefined;
    return winner ? issuesIfSet(values, [loadBalance], 'ignored', `ignored: ${winner} chooses the endpoint instead`) : [];
  },
  resolve: (values, settings) => values.get(loadBalance) ?? settings.loadBalance,
};
