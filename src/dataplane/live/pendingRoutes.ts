// New hosts before their reload. Loading nginx.conf takes tens of seconds at
// thousands of Ingresses (bench/README.md, ingressAtScale), and a new host
// waited for all of it. Until the reload that gives it a server block, a host
// the running nginx.conf does not have is answered by the catch-all server,
// whose Lua (lua/portico/routes.lua) routes it with this document: its paths,
// backends and log variables. Only a host that nginx would serve exactly as
// that route does qualifies: exact and prefix paths, or a regex host's
// case-insensitive regex paths (use-regex; the model admits only the subset
// of PCRE that nginx's PCRE2 and the Lua module's PCRE read alike,
// model/settings/portableRegex.ts), every other location annotation at the
// ConfigMap's default (no rewrite-target), and TLS only as the catch-all can
// stand for it: the certificate of its SNI name comes from the live state
// (the listeners' default server sets it, renderTlsContext.ts), a plain HTTP
// request gets the HTTPS redirect its location renders, an HTTPS answer its
// server's HSTS header; no client certificates, no ciphers of its own. Any
// other waits for the reload, as before.
import { defaultLocationAnnotations } from '../../model/annotations/parseIngressAnnotations.js';
import { CATCH_ALL } from '../../model/ingressRules.js';
import { normalizePrefix } from '../../model/locations.js';
import type { GlobalSettings } from '../../model/settings/globalSettings.js';
import type { Backend, Configuration, Location, LocationAnnotations, Server } from '../../model/types.js';
import { locationRegex } from '../nginx/render/regex.js';
import { redirectsToHttps } from '../nginx/render/renderLocation.js';
import { locationLogFields } from '../locationLogFields.js';

/** One location of a pending host: lua/portico/routes.lua's contract. */
export interface PendingRoute {
  /**
   * Exact: the whole path. Prefix: without trailing slashes, matching itself and below (`/` matches everything).
   * Regex: the pattern of the location's `~*`, tried in the host's order, the first match wins.
   */
  path: string;
  exact: boolean;
  /** A regex host's routes are all regex (its mode is host-wide). */
  regex: boolean;
  /** null: Portico's 404 (the generated `/` of a host without one). */
  backend: string | null;
  /** The log variables the location's block would set. */
  namespace: string;
  ingress: string;
  service: string;
  servicePort: string;
  locationPath: string;
  /** Plain HTTP answers the redirect to HTTPS (ssl-redirect of a TLS host, outside no-tls-redirect-locations). */
  httpsRedirect: boolean;
  /** HTTPS answers carry the ConfigMap's HSTS header (a TLS host with hsts on). */
  hsts: boolean;
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
    hosts[server.hostname] = server.locations.map((location) => route(location, server, configuration.settings, backends));
  }
  return { hosts };
}

/**
 * A plain host name: not the catch-all, not a wildcard, no client certificates
 * (the catch-all server would answer its HTTPS requests without verifying them)
 * and no TLS ciphers of its own (the catch-all's context has the ConfigMap's).
 */
function qualifies(server: Server): boolean {
  return (
    server.hostname !== CATCH_ALL &&
    !server.hostname.startsWith('*.') &&
    server.clientCertificates === undefined &&
    server.tlsCiphers === undefined
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
 * Rendered, the location would be the pending-route location itself: an
 * exact, prefix or regex path (use-regex only places it), proxied over plain
 * HTTP (or a 404) with the defaults' limits and timeouts, no rewrite, no
 * address filter, no forced redirect (the redirect of a TLS host is the
 * route's httpsRedirect), and nothing else.
 */
function isPlain(location: Location, defaults: LocationAnnotations): boolean {
  const { rewrite, backendProtocol, proxy, ipAccess } = location.annotations;
  return (
    (location.match === 'exact' || location.match === 'prefix' || location.match === 'regex') &&
    Object.keys(location.annotations).every((part) => PENDING_ROUTE_PARTS.has(part)) &&
    rewrite.target === undefined &&
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

function route(location: Location, server: Server, settings: GlobalSettings, backends: ReadonlyMap<string, Backend>): PendingRoute {
  const { namespace, ingress, service, servicePort, locationPath } = locationLogFields(
    location,
    location.backend === undefined ? undefined : backends.get(location.backend),
  );
  return {
    path: routePath(location),
    exact: location.match === 'exact',
    regex: location.match === 'regex',
    backend: location.backend ?? null,
    namespace,
    ingress,
    service,
    servicePort,
    locationPath,
    httpsRedirect: redirectsToHttps(location, server, settings),
    hsts: server.tls && settings.hsts,
  };
}

/** What routes.lua matches: see PendingRoute.path. */
function routePath(location: Location): string {
  switch (location.match) {
    case 'exact':
      return location.path;
    case 'prefix':
      return normalizePrefix(location.path);
    case 'regex':
      return locationRegex(location.path);
  }
}
