// What an Ingress's spec names: the Ingress itself, and for each rule path
// the host, path, type and Service it routes.
import type { Ingress } from '../kube/objects.js';
import type { ServiceReference } from './backends.js';
import type { DraftLocation } from './locations.js';
import type { IngressRef } from './types.js';

/** The server of requests no host matches; rules without a host belong to it. */
export const CATCH_ALL = '_';

export interface RulePath {
  host: string;
  path: string;
  type: DraftLocation['type'];
  service: ServiceReference;
}

type Rule = NonNullable<NonNullable<Ingress['spec']>['rules']>[number];

export function ruleHost(rule: Rule): string {
  return rule.host || CATCH_ALL;
}

export function ingressRef(ingress: Ingress): IngressRef {
  return { namespace: ingress.metadata?.namespace ?? '', name: ingress.metadata?.name ?? '' };
}

export function sameIngress(a: IngressRef | undefined, b: IngressRef): boolean {
  return a?.namespace === b.namespace && a.name === b.name;
}

export function serviceRef(namespace: string, service: { name: string; port?: { number?: number; name?: string } }): ServiceReference {
  return { namespace, name: service.name, port: service.port?.number ?? service.port?.name ?? '' };
}

/** The rule paths that route to a Service (resource backends are not supported), in spec order. */
export function rulePaths(ingress: Ingress): RulePath[] {
  const namespace = ingress.metadata?.namespace ?? '';
  return (ingress.spec?.rules ?? []).flatMap((rule) =>
    (rule.http?.paths ?? []).flatMap((path) =>
      path.backend.service
        ? [
            {
              host: ruleHost(rule),
              path: path.path || '/',
              // ImplementationSpecific (or none) is Prefix, as in ingress-nginx; locations.ts decides.
              type: path.pathType === 'Exact' || path.pathType === 'Prefix' ? path.pathType : 'ImplementationSpecific',
              service: serviceRef(namespace, path.backend.service),
            },
          ]
        : [],
    ),
  );
}
