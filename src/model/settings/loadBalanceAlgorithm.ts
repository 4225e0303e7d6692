// The value of `load-balance`, the ConfigMap key and the annotation alike.
import type { LoadBalanceAlgorithm } from '../types.js';
import { optionParser, type ValueParser } from './valueSyntax.js';

export const LOAD_BALANCE_ALGORITHMS: readonly LoadBalanceAlgorithm[] = ['round_robin', 'ewma'];

const parseAlgorithm = optionParser(LOAD_BALANCE_ALGORITHMS);

/**
 * Case-sensitive, as ingress-nginx. Its other values name what other
 * annotations select (and configure): on their own they would hash on
 * nothing or pin to no cookie, so they are refused with a pointer.
 */
export const parseLoadBalanceAlgorithm: ValueParser<LoadBalanceAlgorithm> = (text) => {
  const parsed = parseAlgorithm(text);
  if (parsed.ok) return parsed;
  return {
    ok: false,
    expected:
      `${parsed.expected} (chash and chashsubset come from the upstream-hash-by annotations, ` +
      'sticky_balanced and sticky_persistent from affinity and affinity-mode)',
  };
};
