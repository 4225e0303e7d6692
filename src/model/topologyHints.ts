// Topology-aware routing (--enable-topology-aware-routing), as ingress-nginx
// does it: for a Service that asks for it (annotation
// service.kubernetes.io/topology-mode: auto, or trafficDistribution
// PreferClose), and when the controller's zone is known, an EndpointSlice whose
// endpoints all carry zone hints gives only the endpoints hinted for that zone.
// Under PreferClose a slice with no endpoint for the zone keeps all of them.
import type { EndpointSlice, Service } from '../kube/objects.js';

const TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';

/** The zone whose hints count for `service`, or undefined when hints are not used for it. */
export function hintZoneFor(service: Service, controllerZone: string | undefined): string | undefined {
  if (controllerZone === undefined) return undefined;
  const mode = service.metadata?.annotations?.[TOPOLOGY_MODE];
  if (mode !== undefined && mode.toLowerCase() === 'auto') return controllerZone;
  return prefersClose(service) ? controllerZone : undefined;
}

function prefersClose(service: Service): boolean {
  return service.spec?.trafficDistribution === 'PreferClose';
}

type SliceEndpoint = NonNullable<EndpointSlice['endpoints']>[number];

const hintedFor = (endpoint: SliceEndpoint, zone: string): boolean => (endpoint.hints?.forZones ?? []).some((hint) => hint.name === zone);

/** The endpoints of one slice that may be used from `zone` (all of them when `zone` is undefined or the slice's hints do not apply). */
export function endpointsForZone(slice: EndpointSlice, service: Service, zone: string | undefined): SliceEndpoint[] {
  const endpoints = slice.endpoints ?? [];
  if (zone === undefined) return endpoints;
  if (prefersClose(service) && !endpoints.some((endpoint) => hintedFor(endpoint, zone))) return endpoints;
  if (!endpoints.every((endpoint) => (endpoint.hints?.forZones ?? []).length > 0)) return endpoints;
  return endpoints.filter((endpoint) => hintedFor(endpoint, zone));
}
