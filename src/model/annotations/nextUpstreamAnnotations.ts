// proxy-next-upstream, proxy-next-upstream-timeout and proxy-next-upstream-tries:
// when nginx retries a request on another endpoint (part of ingress-nginx's
// "proxy" group). nginx counts the tries and the time; the Lua balancer picks,
// for each retry, an endpoint the request has not tried yet (lua/portico/balancer.lua).
// The ConfigMap's keys of the same names (and retry-non-idempotent) are the
// defaults; the part exists only on Ingresses that set one of the annotations.
import type { GlobalSettings } from '../settings/globalSettings.js';
import { listParser, optionParser, parseNonNegativeInteger, parseSeconds, type ValueParser } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

/** The conditions ingress-nginx's validator admits: nginx's proxy_next_upstream words, as in its docs. */
export const NEXT_UPSTREAM_CONDITIONS = [
  'error',
  'timeout',
  'invalid_header',
  'http_500',
  'http_502',
  'http_503',
  'http_504',
  'http_403',
  'http_404',
  'http_429',
  'non_idempotent',
  'off',
] as const;

export type NextUpstreamCondition = (typeof NEXT_UPSTREAM_CONDITIONS)[number];

export interface NextUpstream {
  /** What `proxy_next_upstream` gets: `['off']`, or conditions in the order written, `non_idempotent` last when set. */
  conditions: NextUpstreamCondition[];
  /** Seconds a request may spend on retries; 0: no limit but the tries. */
  timeout: number;
  /** Attempts in all, the first included; 0: no limit but the timeout (the Lua balancer stops at 16). */
  tries: number;
}

/** A space-separated list of conditions, at least one. */
export const parseNextUpstreamConditions: ValueParser<NextUpstreamCondition[]> = (text) => {
  const parsed = listParser(' ', optionParser(NEXT_UPSTREAM_CONDITIONS), 'conditions')(text);
  return parsed.ok && parsed.value.length === 0 ? { ok: false, expected: 'at least one condition, such as "error timeout"' } : parsed;
};

/**
 * As ingress-nginx's buildNextUpstream: `non_idempotent` in the list, or the
 * ConfigMap's retry-non-idempotent, puts it last; duplicates go. `off` anywhere
 * turns retries off (nginx ignores the other words then), so it is all that is kept.
 */
export function nextUpstreamConditions(written: readonly NextUpstreamCondition[], retryNonIdempotent: boolean): NextUpstreamCondition[] {
  if (written.includes('off')) return ['off'];
  const conditions: NextUpstreamCondition[] = [...new Set(written.filter((condition) => condition !== 'non_idempotent'))];
  if (retryNonIdempotent || written.includes('non_idempotent')) conditions.push('non_idempotent');
  return conditions;
}

/** What a location without these annotations gets: the ConfigMap's. */
export function nextUpstreamSettings(settings: GlobalSettings): NextUpstream {
  return {
    conditions: nextUpstreamConditions(settings.proxyNextUpstream, settings.retryNonIdempotent),
    timeout: settings.proxyNextUpstreamTimeout,
    tries: settings.proxyNextUpstreamTries,
  };
}

// Risks are ingress-nginx's.
const nextUpstream: AnnotationDefinition<NextUpstreamCondition[]> = {
  name: 'proxy-next-upstream',
  risk: 'Medium',
  parse: parseNextUpstreamConditions,
};
const nextUpstreamTimeout: AnnotationDefinition<number> = { name: 'proxy-next-upstream-timeout', risk: 'Low', parse: parseSeconds };
const nextUpstreamTries: AnnotationDefinition<number> = { name: 'proxy-next-upstream-tries', risk: 'Low', parse: parseNonNegativeInteger };

const ANNOTATIONS: readonly AnnotationDefinition<unknown>[] = [nextUpstream, nextUpstreamTimeout, nextUpstreamTries];

export const nextUpstreamAnnotations: AnnotationGroup<NextUpstream | undefined> = {
  annotations: ANNOTATIONS,
  resolve(values, settings) {
    if (ANNOTATIONS.every((annotation) => values.get(annotation) === undefined)) return undefined;
    return {
      conditions: nextUpstreamConditions(values.get(nextUpstream) ?? settings.proxyNextUpstream, settings.retryNonIdempotent),
      timeout: values.get(nextUpstreamTimeout) ?? settings.proxyNextUpstreamTimeout,
      tries: values.get(nextUpstreamTries) ?? settings.proxyNextUpstreamTries,
    };
  },
};
