// Backends (nginx upstreams) from Services and their EndpointSlices.
import type { EndpointSlice, Service } from '../kube/objects.js';
import type { Backend, Balancing, Endpoint } from './types.js';

export interface ServiceReference {
  namespace: string;
  name: string;
  /** The Ingress backend's port: a number or a Service port name. */
  port: string | number;
}

/** `<namespace>-<service>-<port>`, ingress-nginx's upstream name. */
export function backendName(ref: ServiceReference): string {
  return `${ref.namespace}-${ref.name}-${ref.port}`;
}

export interface ServiceLookup {
  service(key: string): Service | undefined;
  endpointSlicesOfService(serviceKey: string): EndpointSlice[];
}

/**
 * The ready endpoints behind a Service port. A missing Service or port, or no
 * ready endpoint, gives none (nginx answers 503). ExternalName Services give
 * their DNS name, which the data plane resolves.
 */
export function endpointsForService(ref: ServiceReference, lookup: ServiceLookup): Endpoint[] {
  const service = lookup.service(`${ref.namespace}/${ref.name}`);
  if (!service) return [];
  const servicePort = (service.spec?.ports ?? []).find((port) =>
    typeof ref.port === 'number' ? port.port === ref.port : port.name === ref.port,
  );
  if (service.spec?.type === 'ExternalName') {
    const externalName = service.spec.externalName;
    const port = servicePort?.port ?? (typeof ref.port === 'number' ? ref.port : undefined);
    return externalName && port !== undefined ? [{ address: externalName, port }] : [];
  }
  if (!servicePort) return [];
  // EndpointSlice ports carry the Service port's name ("" when unnamed).
  const portName = servicePort.name ?? '';
  const unique = new Map<string, Endpoint>();
  for (const slice of lookup.endpointSlicesOfService(`${ref.namespace}/${ref.name}`)) {
    const slicePort = (slice.ports ?? []).find((port) => (port.name ?? '') === portName);
    if (slicePort?.port === undefined) continue;
    for (const endpoint of slice.endpoints ?? []) {
      // ready unset means ready (the EndpointSlice API's contract).
      if (endpoint.conditions?.ready === false) continue;
      for (const address of endpoint.addresses ?? []) {
        unique.set(`${address}:${slicePort.port}`, { address, port: slicePort.port });
      }
    }
  }
  return [...unique.values()].sort((a, b) => (a.address === b.address ? a.port - b.port : a.address < b.address ? -1 : 1));
}

/** A backend without a canary; who sets its balancing is the caller's rule. */
export function buildBackend(ref: ServiceReference, lookup: ServiceLookup, balancing: Balancing): Backend {
  return {
    name: backendName(ref),
    service: { namespace: ref.namespace, name: ref.name, port: ref.port },
    endpoints: endpointsForService(ref, lookup),
    balancing,
    canary: undefined,
  };
}
