// custom-headers: the ConfigMap of response headers, looked up once per
// Ingress per model run (referencedObjects.ts), so an edit to it reaches nginx
// without an edit to the Ingress. As ingress-nginx: a missing ConfigMap, an
// entry whose name or value fails its pattern, or a name the global ConfigMap's
// global-allowed-response-headers does not list denies the locations (503),
// here with a Warning on the Ingress as well.
import { RESPONSE_HEADER_VALUE, parseResponseHeaderName } from './annotations/customHeadersAnnotations.js';
import { configMapEntries, reportDeniedConfigMap } from './referencedConfigMap.js';
import type { ReferenceContext } from './referencedObjects.js';
import type { LocationAnnotations } from './types.js';

export const CUSTOM_HEADERS_PROBLEM = 'InvalidCustomHeaders';

export function resolveCustomHeaders(annotations: LocationAnnotations, context: ReferenceContext): LocationAnnotations {
  const custom = annotations.customHeaders;
  if (custom === undefined) return annotations;
  const allowed = context.settings.globalAllowedResponseHeaders;
  const resolved = configMapEntries(custom.from, context, (name, value) => headerProblem(name, value, allowed));
  if (resolved.ok) return { ...annotations, customHeaders: { ...custom, headers: resolved.entries } };
  reportDeniedConfigMap(context, 'custom-headers', CUSTOM_HEADERS_PROBLEM, resolved.reason);
  return { ...annotations, customHeaders: { ...custom, denied: resolved.reason } };
}

function headerProblem(name: string, value: string, allowed: readonly string[]): string | undefined {
  if (!parseResponseHeaderName(name).ok) return `${JSON.stringify(name.slice(0, 64))} is not a header name`;
  if (!RESPONSE_HEADER_VALUE.test(value)) return `the value of ${name} is not 1 to 2048 printable ASCII characters`;
  // Case-sensitive, as ingress-nginx compares them.
  if (!allowed.includes(name)) {
    return `header ${name} is not allowed by the ConfigMap's global-allowed-response-headers (${allowed.join(',') || 'empty'})`;
  }
  return undefined;
}
