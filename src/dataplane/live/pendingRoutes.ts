// New hosts before their reload. Loading nginx.conf takes tens of seconds at
// thousands of Ingresses (bench/README.md, ingressAtScale), and a new host
// waited for all of it. Until the reload that gives it a server block, a host
// the running nginx.conf does not have is answered by the catch-all server,
// whose Lua (lua/portico/routes.lua) routes it with this document: its paths,
// backends and log variables. Only a host that nginx would serve exactly as
// that route does qualifies: plain HTTP (no TLS, so no redirect and no
// certificate of its own), exact and prefix paths only, every location
// annotation at the ConfigMap's default. Any other waits for the reload, as
// before.
import { defaultLocationAnnotations } from '../../model/annotations/parseIngressAnnotations.js';
import { CATCH_ALL } from '../../model/ingressRules.js';
import { normalizePrefix } from '../../model/locations.js';
import type { Backend, Configuration, Location, LocationAnnotations, Server } from '../../model/types.js';
import { locationLogFields } from '../locationLogFields.js';

/** One location of a pending host: lua/portico/routes.lua's contract. */
export interface PendingRoute {
  /** Exact: the whole path. Prefix: without trailing slashes, matching itself and below (`/` matches everything). */
  path: string;
  exact: boolean;
  /** null: Portico's 404 (the generated `/` of a host without one). */
  backend: string | null;
  /** The log variables the location's block would set. */
  namespace: string;
  ingress: string;
  service: string;
  servicePort: string;
  locationPath: string;
}

export interface PendingRoutesDocument {
  hosts: Record<string, PendingRoute[]>;
}

/** The hosts of `configuration` that `servedHosts` (the running nginx.conf's) lacks and that qualify. */
export function pendingRoutes(configuration: Configuration, servedHosts: ReadonlySet<string>): PendingRoutesDocument {
  const defaults = defaultLocationAnnotations(configuration.settings);
  const backends = new Map(configuration.backends.map((backend) => [backend.name, backend]));
  const hosts: Record<string, PendingRoute[]> = {};
  for (const server of configuration.servers) {
    if (servedHosts.has(server.hostname) || !qualifies(server)) continue;
    if (!server.locations.every((location) => isPlain(location, defaults))) continue;
    hosts[server.hostname] = server.locations.map((location) => route(location, backends));
  }
  return { hosts };
}

/**
 * A plain host name: not the catch-all, not a wildcard, no TLS, no client
 * certificates (the catch-all server would answer its HTTPS requests without verifying them).
 */
function qualifies(server: Server): boolean {
  return (
    server.hostname !== CATCH_ALL &&
    !server.hostname.startsWith('*.') &&
    !server.tls &&
    server.certificate === undefined &&
    server.clientCertificates === undefined
  );
}

/**
 * The parts of LocationAnnotations the pending-route location can stand for
 * (with the values isPlain checks). Any other part present (limits,
 * authentication, ModSecurity, backend TLS, a snippet, and every group added
 * later) makes the host wait for its reload: fail closed, so a new group can
 * never be served from the catch-all without what it asks for.
 */
const PENDING_ROUTE_PARTS: ReadonlySet<string> = new Set<keyof LocationAnnotations>(['rewrite', 'backendProtocol', 'proxy', 'ipAccess']);

/**
 * Rendered, the location would be the pending-route location itself: an exact
 * or prefix path, proxied over plain HTTP (or a 404) with the defaults' limits
 * and timeouts, no rewrite, no address filter, no forced redirect (a host
 * without TLS has no other), and nothing else.
 */
function isPlain(location: Location, defaults: LocationAnnotations): boolean {
  const { rewrite, backendProtocol, proxy, ipAccess } = location.annotations;
  return (
    (location.match === 'exact' || location.match === 'prefix') &&
    Object.keys(location.annotations).every((part) => PENDING_ROUTE_PARTS.has(part)) &&
    rewrite.target === undefined &&
    !rewrite.useRegex &&
    !rewrite.forceSslRedirect &&
    backendProtocol === 'HTTP' &&
    location.annotations.externalAuth === undefined &&
    ipAccess.allow.length === 0 &&
    ipAccess.deny.length === 0 &&
    location.annotations.basicAuth === undefined &&
    proxy.bodySize === defaults.proxy.bodySize &&
    proxy.connectTimeout === defaults.proxy.connectTimeout &&
    proxy.readTimeout === defaults.proxy.readTimeout &&
    proxy.sendTimeout === defaults.proxy.sendTimeout &&
    proxy.buffering === defaults.proxy.buffering
  );
}

function route(location: Location, backends: ReadonlyMap<string, Backend>): PendingRoute {
  const { namespace, ingress, service, servicePort, locationPath } = locationLogFields(
    location,
    location.backend === undefined ? undefined : backends.get(location.backend),
  );
  const exact = location.match === 'exact';
  return {
    path: exact ? location.path : normalizePrefix(location.path),
    exact,
    backend: location.backend ?? null,
    namespace,
    ingress,
    service,
    servicePort,
    locationPath,
  };
}
