// service-upstream: proxy to the Service's ClusterIP and port instead of its
// endpoints, leaving the balancing to kube-proxy (ingress-nginx's serviceupstream
// group). The ConfigMap's service-upstream is the default. Per backend, as
// ingress-nginx's upstreams: the oldest Ingress routing to it decides (backendTable.ts).
import { parseBoolean } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

const serviceUpstream: AnnotationDefinition<boolean> = { name: 'service-upstream', risk: 'Low', parse: parseBoolean };

/** `true`, or undefined (endpoints): balancings without it compare equal to those from before it existed. */
export const serviceUpstreamAnnotations: AnnotationGroup<true | undefined> = {
  annotations: [serviceUpstream],
  resolve: (values, settings) => ((values.get(serviceUpstream) ?? settings.serviceUpstream) ? true : undefined),
};
