// load-balance: the balancer's algorithm when neither affinity nor
// upstream-hash-by chooses one (ingress-nginx's "loadbalancing" group).
import { parseLoadBalanceAlgorithm } from '../settings/loadBalanceAlgorithm.js';
import type { Balancing, LoadBalanceAlgorithm } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

const loadBalance: AnnotationDefinition<LoadBalanceAlgorithm> = {
  name: 'load-balance',
  risk: 'Low',
  parse: parseLoadBalanceAlgorithm,
};

export const loadBalanceAnnotations: AnnotationGroup<Balancing['algorithm']> = {
  annotations: [loadBalance],
  resolve: (values, settings) => values.get(loadBalance) ?? settings.loadBalance,
};
