// canary and its canary-* settings: an Ingress whose backends take part of
// the traffic of another Ingress's paths (ingress-nginx's "canary" group).
// Which primary a canary joins is the model's business (canaries.ts).
import { parsePortableRegex } from '../settings/portableRegex.js';
import { integerParser, optionParser, parseBoolean, parseCookieName, parseHeaderName, patternParser } from '../settings/valueSyntax.js';
import type { CanaryPolicy } from '../types.js';
import {
  issuesIfSet,
  type AnnotationDefinition,
  type AnnotationGroup,
  type AnnotationIssue,
  type AnnotationValues,
} from './annotationDefinition.js';

const DEFAULT_WEIGHT_TOTAL = 100;
const MAX_WEIGHT = 2 ** 31 - 1;

const canary: AnnotationDefinition<boolean> = { name: 'canary', risk: 'Low', parse: parseBoolean };

const canaryWeight: AnnotationDefinition<number> = { name: 'canary-weight', risk: 'Low', parse: integerParser(0, MAX_WEIGHT) };

const canaryWeightTotal: AnnotationDefinition<number> = {
  name: 'canary-weight-total',
  risk: 'Low',
  parse: integerParser(1, MAX_WEIGHT),
};

const canaryByHeader: AnnotationDefinition<string> = { name: 'canary-by-header', risk: 'Medium', parse: parseHeaderName };

/** Compared for equality in Lua, never written into nginx.conf: the characters only need to be plain. */
const canaryByHeaderValue: AnnotationDefinition<string> = {
  name: 'canary-by-header-value',
  risk: 'Medium',
  parse: patternParser(/^[A-Za-z0-9 ._~:/=+,@-]{1,256}$/, 'a header value of letters, digits, spaces and "-._~:/=+,@"'),
};

const canaryByHeaderPattern: AnnotationDefinition<string> = {
  name: 'canary-by-header-pattern',
  risk: 'Medium',
  parse: parsePortableRegex,
};

const canaryByCookie: AnnotationDefinition<string> = { name: 'canary-by-cookie', risk: 'Medium', parse: parseCookieName };

/** ingress-nginx reads it on the canary Ingress, beside the affinity annotations; it only acts on canaries. */
const affinityCanaryBehavior: AnnotationDefinition<CanaryPolicy['affinityBehavior']> = {
  name: 'affinity-canary-behavior',
  risk: 'Low',
  parse: optionParser(['sticky', 'legacy']),
};

/** Settings that send traffic to a canary: on an Ingress that is not one, they are a mistake. */
const ROUTING_SETTINGS = [canaryByHeader, canaryByHeaderValue, canaryByHeaderPattern, canaryByCookie];

export const canaryAnnotations: AnnotationGroup<CanaryPolicy | undefined> = {
  annotations: [canary, canaryWeight, canaryWeightTotal, ...ROUTING_SETTINGS, affinityCanaryBehavior],
  issues: (values) => (values.get(canary) === true ? canaryIssues(values) : notCanaryIssues(values)),
  resolve: (values) => {
    if (values.get(canary) !== true) return undefined;
    const header = values.get(canaryByHeader);
    const headerValue = header === undefined ? undefined : values.get(canaryByHeaderValue);
    return {
      weight: values.get(canaryWeight) ?? 0,
      weightTotal: values.get(canaryWeightTotal) ?? DEFAULT_WEIGHT_TOTAL,
      header,
      headerValue,
      headerPattern: header === undefined || headerValue !== undefined ? undefined : values.get(canaryByHeaderPattern),
      cookie: values.get(canaryByCookie),
      affinityBehavior: values.get(affinityCanaryBehavior) ?? 'sticky',
    };
  },
};

/**
 * As ingress-nginx: canary settings that route traffic, on an Ingress without
 * `canary: "true"`, refuse it; served as a primary instead, it could take over
 * the very paths it was meant to share. A zero weight routes nothing, so
 * charts that template `canary-weight: "0"` onto primaries keep working.
 */
function notCanaryIssues(values: AnnotationValues): AnnotationIssue[] {
  const zeroWeight = values.get(canaryWeight) === 0;
  return [
    ...issuesIfSet(
      values,
      zeroWeight ? ROUTING_SETTINGS : [canaryWeight, ...ROUTING_SETTINGS],
      'refused',
      'it routes traffic to a canary, but this Ingress does not set canary: "true"',
    ),
    ...issuesIfSet(
      values,
      zeroWeight ? [canaryWeight, canaryWeightTotal, affinityCanaryBehavior] : [canaryWeightTotal, affinityCanaryBehavior],
      'ignored',
      'ignored: it has no effect without canary: "true"',
    ),
  ];
}

function canaryIssues(values: AnnotationValues): AnnotationIssue[] {
  const weight = values.get(canaryWeight) ?? 0;
  const weightTotal = values.get(canaryWeightTotal) ?? DEFAULT_WEIGHT_TOTAL;
  const overweight: AnnotationIssue[] =
    weight > weightTotal
      ? [{ annotation: canaryWeight, verdict: 'refused', reason: `${weight} is above canary-weight-total (${weightTotal})` }]
      : [];
  if (values.get(canaryByHeader) === undefined) {
    const reason = 'ignored: it has no effect without canary-by-header';
    return [...overweight, ...issuesIfSet(values, [canaryByHeaderValue, canaryByHeaderPattern], 'ignored', reason)];
  }
  if (values.get(canaryByHeaderValue) === undefined) return overweight;
  const reason = 'ignored: canary-by-header-value takes precedence';
  return [...overweight, ...issuesIfSet(values, [canaryByHeaderPattern], 'ignored', reason)];
}
