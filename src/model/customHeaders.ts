// custom-headers: the ConfigMap of response headers, looked up once per
// Ingress per model run (referencedObjects.ts), so an edit to it reaches nginx
// without an edit to the Ingress. As ingress-nginx: a missing ConfigMap, an
// entry whose name or value fails its pattern, or a name the global ConfigMap's
// global-allowed-response-headers does not list denies the locations (503),
// here with a Warning on the Ingress as well.
import { RESPONSE_HEADER_VALUE, parseResponseHeaderName, type CustomHeaders } from './annotations/customHeadersAnnotations.js';
import { resolveObjectReference } from './objectReference.js';
import type { ReferenceContext } from './referencedObjects.js';
import type { LocationAnnotations } from './types.js';

export const CUSTOM_HEADERS_PROBLEM = 'InvalidCustomHeaders';

export function resolveCustomHeaders(annotations: LocationAnnotations, context: ReferenceContext): LocationAnnotations {
  const custom = annotations.customHeaders;
  if (custom === undefined) return annotations;
  const resolved = responseHeaders(custom, context);
  if (resolved.ok) return { ...annotations, customHeaders: { ...custom, headers: resolved.headers } };
  context.problems.push({
    ingress: context.ingress,
    severity: 'warning',
    reason: CUSTOM_HEADERS_PROBLEM,
    message: `custom-headers: ${resolved.reason}; its locations answer 503`,
  });
  return { ...annotations, customHeaders: { ...custom, denied: resolved.reason } };
}

type Resolved = { ok: true; headers: Array<[string, string]> } | { ok: false; reason: string };

function responseHeaders(custom: CustomHeaders, context: ReferenceContext): Resolved {
  const key = resolveObjectReference(custom.from, context.ingress.namespace, context.settings);
  if (!key.ok) return key;
  const configMap = context.lookup.configMap(key.key);
  if (configMap === undefined) return { ok: false, reason: `ConfigMap ${key.key} not found` };
  const allowed = context.settings.globalAllowedResponseHeaders;
  const headers = Object.entries(configMap.data ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [name, value] of headers) {
    const shown = JSON.stringify(name.slice(0, 64));
    if (!parseResponseHeaderName(name).ok) return { ok: false, reason: `ConfigMap ${key.key}: ${shown} is not a header name` };
    if (!RESPONSE_HEADER_VALUE.test(value)) {
      return { ok: false, reason: `ConfigMap ${key.key}: the value of ${name} is not 1 to 2048 printable ASCII characters` };
    }
    // Case-sensitive, as ingress-nginx compares them.
    if (!allowed.includes(name)) {
      return {
        ok: false,
        reason: `ConfigMap ${key.key}: header ${name} is not allowed by the ConfigMap's global-allowed-response-headers (${allowed.join(',') || 'empty'})`,
      };
    }
  }
  return { ok: true, headers };
}
