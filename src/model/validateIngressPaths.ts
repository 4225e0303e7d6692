// Paths are user strings that end up in nginx.conf. The renderer quotes them
// whatever they hold; this check refuses what no valid Ingress needs, as
// ingress-nginx's strict-validate-path-type does (CVE-2022-4886, CVE-2026-24512),
// and what nginx would refuse: a path too long for one of its tokens, or, on an
// Ingress that asks for regex mode, a regex PCRE would not compile as meant.
import type { Ingress } from '../kube/objects.js';
import { asksForRegex } from './locations.js';
import { pathLengthProblem, regexPathProblem } from './regexPaths.js';
import type { LocationAnnotations } from './types.js';

/** What Exact and Prefix paths may hold under strict-validate-path-type. */
const STRICT_PATH = /^\/[A-Za-z0-9/._-]*$/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * Problems with the Ingress's paths; empty when it may be served. `rewrite`:
 * the Ingress's parsed rewrite annotations (undefined when they are invalid,
 * which is reported on its own).
 */
export function validateIngressPaths(ingress: Ingress, strict: boolean, rewrite: LocationAnnotations['rewrite'] | undefined): string[] {
  const errors: string[] = [];
  for (const rule of ingress.spec?.rules ?? []) {
    for (const path of rule.http?.paths ?? []) {
      const value = path.path ?? '/';
      const where = `path ${JSON.stringify(value.slice(0, 64))}${rule.host ? ` of host ${rule.host}` : ''}`;
      const tooLong = pathLengthProblem(value);
      if (!value.startsWith('/')) errors.push(`${where} must start with "/"`);
      else if (CONTROL_CHARACTER.test(value)) errors.push(`${where} contains a control character`);
      else if (tooLong !== undefined) errors.push(`${where} ${tooLong}`);
      else if (strict && path.pathType !== 'ImplementationSpecific' && !STRICT_PATH.test(value)) {
        errors.push(
          `${where} (pathType ${path.pathType}) may contain only "/", letters, digits, ".", "_" and "-" ` +
            '(strict-validate-path-type); use pathType ImplementationSpecific for a regular expression',
        );
      } else if (rewrite && asksForRegex(value, rewrite)) {
        const problem = regexPathProblem(value, rewrite);
        if (problem !== undefined) errors.push(`${where} ${problem}`);
      }
    }
  }
  return errors;
}
