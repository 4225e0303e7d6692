import type { Kind } from '../../kube/objects.js';

/** Where a kind lives in the API. */
export interface ResourceDescriptor {
  kind: Kind;
  apiVersion: string;
  plural: string;
  namespaced: boolean;
}

export const RESOURCES: { readonly [K in Kind]: ResourceDescriptor } = {
  Ingress: { kind: 'Ingress', apiVersion: 'networking.k8s.io/v1', plural: 'ingresses', namespaced: true },
  IngressClass: { kind: 'IngressClass', apiVersion: 'networking.k8s.io/v1', plural: 'ingressclasses', namespaced: false },
  Service: { kind: 'Service', apiVersion: 'v1', plural: 'services', namespaced: true },
  EndpointSlice: { kind: 'EndpointSlice', apiVersion: 'discovery.k8s.io/v1', plural: 'endpointslices', namespaced: true },
  Secret: { kind: 'Secret', apiVersion: 'v1', plural: 'secrets', namespaced: true },
  ConfigMap: { kind: 'ConfigMap', apiVersion: 'v1', plural: 'configmaps', namespaced: true },
  Namespace: { kind: 'Namespace', apiVersion: 'v1', plural: 'namespaces', namespaced: false },
};

/** The collection URL path, scoped to one namespace when given and the kind is namespaced. */
export function collectionPath(resource: ResourceDescriptor, namespace?: string): string {
  const base = resource.apiVersion.includes('/') ? `/apis/${resource.apiVersion}` : `/api/${resource.apiVersion}`;
  if (resource.namespaced && namespace) {
    return `${base}/namespaces/${encodeURIComponent(namespace)}/${resource.plural}`;
  }
  return `${base}/${resource.plural}`;
}
