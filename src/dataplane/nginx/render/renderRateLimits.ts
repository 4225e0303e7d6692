// Rate and connection limits (rateLimitAnnotations.ts) as ingress-nginx renders
// them: at the http level, per Ingress that asks for them, a limit_conn_zone
// and/or limit_req_zone per kind and a map giving its key (the ConfigMap's
// limit-conn-zone-variable, empty for limit-allowlist addresses: nginx counts no
// request whose key is empty); in each of its locations limit_conn, limit_req
// (burst = rate × limit-burst-multiplier, nodelay) and limit_rate(_after).
// Locations and Ingresses without limits get nothing.
//
// Zones are shared memory: every worker of one nginx counts in the same zone,
// so a limit holds per nginx (per Portico replica), not per worker. A reload
// keeps a zone and its counts when its name and size stay; nginx refuses a
// reload that gives a kept zone another key expression, which is why the key is
// always the Ingress's `$limit_<id>` map, whatever limit-conn-zone-variable says.
import { createHash } from 'node:crypto';
import type { Configuration, IngressRef, Location, RateLimits } from '../../../model/types.js';
import { literal, raw, template } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderScope } from './renderScope.js';

/** ingress-nginx's zone size: 1m holds about 16,000 clients' states, so 5m about 80,000 per Ingress and kind. */
const ZONE_SIZE = '5m';

interface IngressZones {
  /** The map giving each request its key in the Ingress's zones. */
  key: string;
  /** The geo telling limit-allowlist addresses (1) from the others (""). */
  allowlisted: string;
  connections: string;
  perSecond: string;
  perMinute: string;
}

/**
 * Names from the Ingress (readable in nginx's "limiting requests ... by zone"
 * log lines) made unique and safe by a digest of its namespace/name: a manifest
 * file's Ingress may have any name, and the zone name may hold no `:`.
 */
function ingressZones(ingress: IngressRef): IngressZones {
  const id = createHash('sha256').update(`${ingress.namespace}/${ingress.name}`).digest('hex').slice(0, 16);
  const readable = [ingress.namespace, ingress.name].map((part) => part.replace(/[^a-z0-9.-]/gi, '-').slice(0, 100)).join('_');
  const zone = `${readable}_${id}`;
  return {
    key: `$limit_${id}`,
    allowlisted: `$limit_allowlisted_${id}`,
    connections: `${zone}_conn`,
    perSecond: `${zone}_rps`,
    perMinute: `${zone}_rpm`,
  };
}

function countsClients(limits: RateLimits | undefined): limits is RateLimits {
  return limits !== undefined && (limits.connections > 0 || limits.requestsPerSecond > 0 || limits.requestsPerMinute > 0);
}

/** The zones, once per Ingress (all its locations carry the same limits), each traced to its Ingress. */
export function renderRateLimitZones(http: ConfigBuilder, scope: RenderScope): void {
  for (const [ingress, limits] of limitedIngresses(scope.configuration).values()) {
    http.from(scope.origins.ingress(ingress), () => renderIngressZones(http, ingressZones(ingress), limits, scope.configuration));
  }
}

function limitedIngresses(configuration: Configuration): Map<string, [IngressRef, RateLimits]> {
  const found = new Map<string, [IngressRef, RateLimits]>();
  for (const server of configuration.servers) {
    for (const { ingress, annotations } of server.locations) {
      if (ingress === undefined || !countsClients(annotations.limits)) continue;
      const name = `${ingress.namespace}/${ingress.name}`;
      if (!found.has(name)) found.set(name, [ingress, annotations.limits]);
    }
  }
  return found;
}

function renderIngressZones(http: ConfigBuilder, zones: IngressZones, limits: RateLimits, configuration: Configuration): void {
  const allowlisted = limits.allowlist.length > 0;
  if (allowlisted) {
    // geo matches $remote_addr: the client, or what the real-IP settings make of it. No `default` line: the
    // others get "" anyway, and an allowlisted 0.0.0.0/0 or ::/0 would be a duplicate of it.
    http.block('geo', [raw.variable(zones.allowlisted)], (geo) => {
      for (const cidr of limits.allowlist) geo.entry(raw.cidr(cidr), literal('1'));
    });
  }
  const source = allowlisted ? raw.variable(zones.allowlisted) : literal('');
  http.block('map', [source, raw.variable(zones.key)], (map) => {
    map.entry(raw.keyword('default'), template(configuration.settings.limitConnZoneVariable));
    if (allowlisted) map.entry(literal('1'), literal(''));
  });
  const key = raw.variable(zones.key);
  if (limits.connections > 0) http.directive('limit_conn_zone', key, raw.zone(zones.connections, ZONE_SIZE));
  if (limits.requestsPerSecond > 0) {
    http.directive('limit_req_zone', key, raw.zone(zones.perSecond, ZONE_SIZE), raw.requestRate(limits.requestsPerSecond, 's'));
  }
  if (limits.requestsPerMinute > 0) {
    http.directive('limit_req_zone', key, raw.zone(zones.perMinute, ZONE_SIZE), raw.requestRate(limits.requestsPerMinute, 'm'));
  }
}

/** In order: connections, then requests per second, then per minute (as ingress-nginx); then the bandwidth. */
export function renderLocationRateLimits(body: ConfigBuilder, location: Location, scope: RenderScope): void {
  const { limits } = location.annotations;
  if (limits === undefined) return;
  const { settings } = scope.configuration;
  if (countsClients(limits)) {
    if (location.ingress === undefined) throw new Error('a location without an Ingress has rate limits');
    const zones = ingressZones(location.ingress);
    if (limits.connections > 0) {
      body.directive('limit_conn', raw.zoneName(zones.connections), raw.integer(limits.connections));
      body.directive('limit_conn_status', raw.integer(settings.limitConnStatusCode));
    }
    const requestZones = [
      [zones.perSecond, limits.requestsPerSecond],
      [zones.perMinute, limits.requestsPerMinute],
    ] as const;
    for (const [zone, rate] of requestZones) {
      if (!(rate > 0)) continue;
      // nginx refuses `burst=0` (limit-burst-multiplier 0, which ingress-nginx renders as is); no burst is the same limit.
      const burst = rate * limits.burstMultiplier;
      body.directive('limit_req', raw.zone(zone), ...(burst > 0 ? [raw.burst(burst)] : []), raw.keyword('nodelay'));
    }
    if (limits.requestsPerSecond > 0 || limits.requestsPerMinute > 0) {
      body.directive('limit_req_status', raw.integer(settings.limitReqStatusCode));
    }
  }
  if (limits.rateAfterKilobytes > 0) body.directive('limit_rate_after', raw.size(`${limits.rateAfterKilobytes}k`));
  if (limits.rateKilobytes > 0) body.directive('limit_rate', raw.size(`${limits.rateKilobytes}k`));
}
