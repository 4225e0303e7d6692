// While nginx loads a new nginx.conf, the old one keeps serving: for the
// length of a reload (seconds with thousands of Ingresses), or for good when
// nginx refuses the new text. Its locations still name the backends, and its
// TLS servers the certificates, that the new configuration drops, so the live
// state pushed before a reload must hold both. The data plane pushes the next
// configuration's own live state once the reload is done.
import type { Configuration, Location, Server } from '../../model/types.js';

/**
 * `next`, plus the backends, certificates and servers of `running` that `next`
 * no longer has, and the basic-auth locations of `running`'s servers that
 * `next` keeps (the authentication document's key of a location changes with
 * its realm or Secret, and the running nginx.conf names the old key until the
 * reload: without it those requests would get 503); `next` itself when it drops none.
 */
export function acrossReload(running: Configuration, next: Configuration): Configuration {
  const servers = droppedBy(next.servers, running.servers, (server) => server.hostname);
  const backends = droppedBy(next.backends, running.backends, (backend) => backend.name);
  const certificates = droppedBy(next.certificates, running.certificates, (certificate) => certificate.id);
  const authenticated = authenticatedLocations(running);
  const kept = next.servers.map((server) => withLocationsOf(server, authenticated.get(server.hostname)));
  const keptChanged = kept.some((server, index) => server !== next.servers[index]);
  if (servers.length + backends.length + certificates.length === 0 && !keptChanged) return next;
  return {
    ...next,
    servers: [...kept, ...servers],
    backends: [...next.backends, ...backends],
    certificates: [...next.certificates, ...certificates],
  };
}

/** By hostname: the locations with basic or digest authentication. */
function authenticatedLocations(configuration: Configuration): Map<string, Location[]> {
  const byHost = new Map<string, Location[]>();
  for (const server of configuration.servers) {
    const locations = server.locations.filter((location) => location.annotations.basicAuth !== undefined);
    if (locations.length > 0) byHost.set(server.hostname, locations);
  }
  return byHost;
}

/** `server` with `extra` appended to its locations (only the live state reads them), or `server` itself. */
function withLocationsOf(server: Server, extra: readonly Location[] | undefined): Server {
  return extra === undefined ? server : { ...server, locations: [...server.locations, ...extra] };
}

function droppedBy<T>(kept: readonly T[], before: readonly T[], key: (item: T) => string): T[] {
  const keys = new Set(kept.map(key));
  return before.filter((item) => !keys.has(key(item)));
}
