// What the running configuration can label a request with. A record naming
// anything else did not come from a location Portico rendered, so it is
// dropped: label values never come from a batch alone, which keeps the number
// of series bounded by the configuration, whatever a batch holds.
import { ingressNginxUpstreamName } from '../model/backends.js';
import type { Configuration } from '../model/types.js';

export class ServedTraffic {
  /** Server names of the Ingresses (the catch-all `_` is not a host). */
  readonly hosts = new Set<string>();
  /** locationKey() of every proxied location. */
  readonly locations = new Set<string>();
  /** `namespace/name` of the Ingresses of those locations (`/` for the default backend's). */
  readonly ingresses = new Set<string>();
  /** Backend name → the `canary` label: ingress-nginx's spelling of it (ingressNginxUpstreamName), as its dashboards expect. */
  readonly backends = new Map<string, string>();

  static readonly NONE = new ServedTraffic();

  /**
   * The values the renderer's per-location variables take ($namespace,
   * $ingress_name, $service_name, $location_path; renderLocation.ts), for
   * the locations that log request records (those with a backend).
   */
  static of(configuration: Configuration): ServedTraffic {
    const served = new ServedTraffic();
    const services = new Map(configuration.backends.map((backend) => [backend.name, backend.service.name]));
    for (const backend of configuration.backends) served.backends.set(backend.name, ingressNginxUpstreamName(backend.service));
    for (const server of configuration.servers) {
      if (server.hostname !== '_') served.hosts.add(server.hostname);
      for (const location of server.locations) {
        const service = location.backend === undefined ? undefined : services.get(location.backend);
        if (service === undefined) continue;
        const namespace = location.ingress?.namespace ?? '';
        const ingress = location.ingress?.name ?? '';
        served.locations.add(locationKey(namespace, ingress, service, location.path));
        served.ingresses.add(ingressKey(namespace, ingress));
      }
    }
    return served;
  }
}

export function locationKey(namespace: string, ingress: string, service: string, path: string): string {
  return `${namespace}\0${ingress}\0${service}\0${path}`;
}

export function ingressKey(namespace: string, ingress: string): string {
  return `${namespace}/${ingress}`;
}
