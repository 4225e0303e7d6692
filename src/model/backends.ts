// Backends (nginx upstreams) from Services and their EndpointSlices.
import type { EndpointSlice, Service } from '../kube/objects.js';
import { parseAddress, selfEndpointReason, type EndpointGuard } from './selfAddress.js';
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

/** Which endpoints a backend may have, whatever its Service says. */
export interface EndpointPolicy {
  /** Portico's own addresses and ports: never a backend. */
  guard: EndpointGuard;
  /** false with `--disable-svc-external-name`: ExternalName Services give no endpoints. */
  externalNames: boolean;
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

/**
 * A backend without a canary; who sets its balancing is the caller's rule.
 * `refused`: why endpoints the Service gives were left out (for its Ingresses' Events).
 * IP literals are checked here; a DNS name (ExternalName) is checked once resolved (src/dataplane/resolveExternalNames.ts).
 */
export function buildBackend(
  ref: ServiceReference,
  lookup: ServiceLookup,
  balancing: Balancing,
  policy: EndpointPolicy,
): { backend: Backend; refused: string[] } {
  const service = lookup.service(`${ref.namespace}/${ref.name}`);
  const externalNameRefused = service?.spec?.type === 'ExternalName' && !policy.externalNames;
  const found = externalNameRefused ? [] : endpointsForService(ref, lookup);
  const endpoints: Endpoint[] = [];
  const refused = externalNameRefused ? ['the Service is of type ExternalName, which --disable-svc-external-name refuses'] : [];
  for (const endpoint of found) {
    const reason = parseAddress(endpoint.address) === undefined ? undefined : selfEndpointReason(endpoint, policy.guard);
    if (reason === undefined) endpoints.push(endpoint);
    else refused.push(`endpoint ${endpoint.address}:${endpoint.port} ${reason}`);
  }
  return {
    backend: {
      name: backendName(ref),
      service: { namespace: ref.namespace, name: ref.name, port: ref.port },
      endpoints,
      balancing,
      canary: undefined,
    },
    refused,
  };
}
