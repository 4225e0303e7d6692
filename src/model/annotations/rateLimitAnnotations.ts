// limit-connections, limit-rps, limit-rpm (with limit-burst-multiplier and
// limit-allowlist, alias limit-whitelist), limit-rate and limit-rate-after: as
// ingress-nginx's "rate-limit" group. The zones the limits count in are per
// Ingress (renderRateLimits.ts names them); the key they count by and the status
// of a refused request are the ConfigMap's.
import type { GlobalSettings } from '../settings/globalSettings.js';
import { integerParser, parseNonNegativeInteger } from '../settings/valueSyntax.js';
import type { RateLimits } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup, AnnotationValues } from './annotationDefinition.js';
import { parseSourceRange } from './ipAccessAnnotations.js';

/** ingress-nginx's default: a client may go 5 times its rate over in one burst before it is refused. */
export const DEFAULT_BURST_MULTIPLIER = 5;

/**
 * Bounds that keep nginx's arithmetic exact: it counts a rate in thousandths
 * per millisecond (rate × 1000) and a burst as burst × 1000 in 64 bits, and
 * refuses a connection limit above 65535. 10^6 requests a second from one
 * client (6 × 10^7 a minute) is beyond any limit worth setting; the largest
 * burst, 10^6 × 1000, still leaves nine orders of magnitude.
 */
const MAX_REQUESTS_PER_SECOND = 1_000_000;
const MAX_BURST_MULTIPLIER = 1000;
const MAX_CONNECTIONS = 65535;

// Risks are ingress-nginx's: each value is a number or a list of addresses.
const connections: AnnotationDefinition<number> = {
  name: 'limit-connections',
  risk: 'Low',
  parse: integerParser(0, MAX_CONNECTIONS),
};

const requestsPerSecond: AnnotationDefinition<number> = {
  name: 'limit-rps',
  risk: 'Low',
  parse: integerParser(0, MAX_REQUESTS_PER_SECOND),
};

const requestsPerMinute: AnnotationDefinition<number> = {
  name: 'limit-rpm',
  risk: 'Low',
  parse: integerParser(0, MAX_REQUESTS_PER_SECOND * 60),
};

const burstMultiplier: AnnotationDefinition<number> = {
  name: 'limit-burst-multiplier',
  risk: 'Low',
  parse: integerParser(0, MAX_BURST_MULTIPLIER),
};

const allowlist: AnnotationDefinition<string[]> = {
  name: 'limit-allowlist',
  aliases: ['limit-whitelist'],
  risk: 'Low',
  parse: parseSourceRange,
};

/** Kilobytes per second (nginx's `k`), as ingress-nginx; 0 turns the ConfigMap's default off. */
const rate: AnnotationDefinition<number> = {
  name: 'limit-rate',
  risk: 'Low',
  parse: parseNonNegativeInteger,
};

const rateAfter: AnnotationDefinition<number> = {
  name: 'limit-rate-after',
  risk: 'Low',
  parse: parseNonNegativeInteger,
};

/**
 * undefined when nothing limits the location, so such locations render no
 * limit directive at all. As ingress-nginx, the allowlist and the multiplier
 * only matter to a connection or request limit, and limit-rate(-after) fall
 * back to the ConfigMap's.
 */
function resolveRateLimits(values: AnnotationValues, settings: GlobalSettings): RateLimits | undefined {
  const get = <T>(definition: AnnotationDefinition<T>): T | undefined => values.get(definition);
  const limits: RateLimits = {
    connections: get(connections) ?? 0,
    requestsPerSecond: get(requestsPerSecond) ?? 0,
    requestsPerMinute: get(requestsPerMinute) ?? 0,
    burstMultiplier: get(burstMultiplier) ?? DEFAULT_BURST_MULTIPLIER,
    allowlist: get(allowlist) ?? [],
    rateKilobytes: get(rate) ?? settings.limitRate,
    rateAfterKilobytes: get(rateAfter) ?? settings.limitRateAfter,
  };
  const counted = limits.connections > 0 || limits.requestsPerSecond > 0 || limits.requestsPerMinute > 0;
  if (!counted) {
    if (limits.rateKilobytes === 0 && limits.rateAfterKilobytes === 0) return undefined;
    return { ...limits, burstMultiplier: DEFAULT_BURST_MULTIPLIER, allowlist: [] };
  }
  return limits;
}

export const rateLimitAnnotations: AnnotationGroup<RateLimits | undefined> = {
  annotations: [connections, requestsPerSecond, requestsPerMinute, burstMultiplier, allowlist, rate, rateAfter],
  resolve: resolveRateLimits,
};
