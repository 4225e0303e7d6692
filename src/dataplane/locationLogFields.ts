// What the access log and the request metrics say about the location that
// served a request: the values a location block `set`s (renderLocation.ts),
// and the ones Lua sets for a host routed before its reload (pendingRoutes.ts).
// One derivation, so the two cannot drift apart.
import type { Backend, Location } from '../model/types.js';

export interface LocationLogFields {
  /** $proxy_upstream_name: the backend's name, `-` for Portico's 404. */
  readonly upstream: string;
  readonly namespace: string;
  readonly ingress: string;
  readonly service: string;
  readonly servicePort: string;
  readonly locationPath: string;
}

/** `backend`: the location's Backend, undefined for a 404 or a name the model does not list. */
export function locationLogFields(location: Location, backend: Backend | undefined): LocationLogFields {
  return {
    upstream: location.backend ?? '-',
    namespace: location.ingress?.namespace ?? '',
    ingress: location.ingress?.name ?? '',
    service: backend?.service.name ?? '',
    servicePort: backend === undefined ? '' : String(backend.service.port),
    locationPath: location.path,
  };
}
