// What one Ingress's spec contributes before it meets the others: its hosts,
// its rule paths with the backends they name, its own default backend, and the
// draft locations its paths become with the annotations resolved for it. A
// function of the Ingress object alone (and of those annotations), so the memo
// keeps it per object (memo/ingressShareMemo.ts).
import type { Ingress } from '../kube/objects.js';
import { backendName, type ServiceReference } from './backends.js';
import { ingressRef, rulePaths, ruleHost, serviceRef, type RulePath } from './ingressRules.js';
import type { DraftLocation } from './locations.js';
import type { IngressRef, LocationAnnotations } from './types.js';

/** A Service port an Ingress routes to, with its backend's name. */
export interface NamedService {
  service: ServiceReference;
  backend: string;
}

export interface IngressShare {
  ref: IngressRef;
  /** No rules: with a default backend, the Ingress claims the catch-all. */
  ruleless: boolean;
  /** Rule hosts in spec order (CATCH_ALL for a rule without one). */
  ruleHosts: string[];
  /** spec.defaultBackend's Service port. */
  ownDefault: NamedService | undefined;
  /** The rule paths that route to a Service, in spec order. */
  paths: Array<RulePath & NamedService>;
}

export function ingressShare(ingress: Ingress): IngressShare {
  const ref = ingressRef(ingress);
  const rules = ingress.spec?.rules ?? [];
  const ownService = ingress.spec?.defaultBackend?.service;
  return {
    ref,
    ruleless: rules.length === 0,
    ruleHosts: rules.map(ruleHost),
    ownDefault: ownService ? named(serviceRef(ref.namespace, ownService)) : undefined,
    // Written out, not spread: V8 makes spread objects larger (locations.ts says so of finalizeLocations').
    paths: rulePaths(ingress).map(({ host, path, type, service }) => ({ host, path, type, service, backend: backendName(service) })),
  };
}

function named(service: ServiceReference): NamedService {
  return { service, backend: backendName(service) };
}

/** The draft location of each of the share's paths, with `annotations`. */
export function shareDrafts(share: IngressShare, annotations: LocationAnnotations): DraftLocation[] {
  return share.paths.map((rulePath) => ({
    path: rulePath.path,
    type: rulePath.type,
    backend: rulePath.backend,
    ingress: share.ref,
    annotations,
    generated: false,
  }));
}
