// auth-proxy-set-headers: the ConfigMap of headers sent to the auth service,
// looked up once per Ingress per model run (referencedObjects.ts). Names and
// values are checked here (CVE-2025-15566 injected nginx configuration through
// them): a name is ingress-nginx's header name, a value printable ASCII whose
// `$` starts an nginx variable reference. Anything wrong (missing, another
// namespace, a bad entry) denies the location (503) with a Warning.
import { parseAuthHeaderName } from './annotations/externalAuthAnnotations.js';
import { resolveObjectReference } from './objectReference.js';
import type { ReferenceContext } from './referencedObjects.js';
import type { ExternalAuth, LocationAnnotations } from './types.js';

/** Printable ASCII; every `$` starts `$name` or `${name}`. */
const HEADER_VALUE = /^(?:[\x20-\x23\x25-\x7e]|\$[A-Za-z0-9_]+|\$\{[A-Za-z0-9_]+\})*$/;
/** nginx reads a configuration token into a 4 KB buffer. */
const MAX_VALUE_LENGTH = 2048;

export const AUTH_PROXY_HEADERS_PROBLEM = 'InvalidAuthProxySetHeaders';

export function resolveAuthProxySetHeaders(annotations: LocationAnnotations, context: ReferenceContext): LocationAnnotations {
  const auth = annotations.externalAuth;
  if (auth?.proxySetHeadersFrom === undefined) return annotations;
  const resolved = proxySetHeaders(auth, context);
  if (resolved.ok) return { ...annotations, externalAuth: { ...auth, proxySetHeaders: resolved.headers } };
  context.problems.push({
    ingress: context.ingress,
    severity: 'warning',
    reason: AUTH_PROXY_HEADERS_PROBLEM,
    message: `auth-proxy-set-headers: ${resolved.reason}; its locations answer 503`,
  });
  return { ...annotations, externalAuth: { ...auth, denied: resolved.reason } };
}

type Resolved = { ok: true; headers: Array<[string, string]> } | { ok: false; reason: string };

function proxySetHeaders(auth: ExternalAuth, context: ReferenceContext): Resolved {
  const reference = auth.proxySetHeadersFrom;
  if (reference === undefined) return { ok: true, headers: [] };
  const key = resolveObjectReference(reference, context.ingress.namespace, context.settings);
  if (!key.ok) return key;
  const configMap = context.lookup.configMap(key.key);
  if (configMap === undefined) return { ok: false, reason: `ConfigMap ${key.key} not found` };
  const headers = Object.entries(configMap.data ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [name, value] of headers) {
    if (!parseAuthHeaderName(name).ok)
      return { ok: false, reason: `ConfigMap ${key.key}: ${JSON.stringify(name.slice(0, 64))} is not a header name` };
    if (value.length > MAX_VALUE_LENGTH || !HEADER_VALUE.test(value)) {
      return {
        ok: false,
        reason: `ConfigMap ${key.key}: the value of ${name} is not printable ASCII with well-formed nginx variables, at most ${MAX_VALUE_LENGTH} characters`,
      };
    }
  }
  return { ok: true, headers };
}
