// auth-proxy-set-headers: the ConfigMap of headers sent to the auth service,
// looked up once per Ingress per model run (referencedObjects.ts). Names and
// values are checked here (CVE-2025-15566 injected nginx configuration through
// them): a name is ingress-nginx's header name, a value printable ASCII whose
// `$` starts an nginx variable reference. Anything wrong (missing, another
// namespace, a bad entry) denies the location (503) with a Warning.
import { parseAuthHeaderName } from './annotations/externalAuthAnnotations.js';
import { configMapEntries, reportDeniedConfigMap } from './referencedConfigMap.js';
import type { ReferenceContext } from './referencedObjects.js';
import type { LocationAnnotations } from './types.js';

/** Printable ASCII; every `$` starts `$name` or `${name}`. */
const HEADER_VALUE = /^(?:[\x20-\x23\x25-\x7e]|\$[A-Za-z0-9_]+|\$\{[A-Za-z0-9_]+\})*$/;
/** nginx reads a configuration token into a 4 KB buffer. */
const MAX_VALUE_LENGTH = 2048;

export const AUTH_PROXY_HEADERS_PROBLEM = 'InvalidAuthProxySetHeaders';

export function resolveAuthProxySetHeaders(annotations: LocationAnnotations, context: ReferenceContext): LocationAnnotations {
  const auth = annotations.externalAuth;
  if (auth?.proxySetHeadersFrom === undefined) return annotations;
  const resolved = configMapEntries(auth.proxySetHeadersFrom, context, headerProblem);
  if (resolved.ok) return { ...annotations, externalAuth: { ...auth, proxySetHeaders: resolved.entries } };
  reportDeniedConfigMap(context, 'auth-proxy-set-headers', AUTH_PROXY_HEADERS_PROBLEM, resolved.reason);
  return { ...annotations, externalAuth: { ...auth, denied: resolved.reason } };
}

function headerProblem(name: string, value: string): string | undefined {
  if (!parseAuthHeaderName(name).ok) return `${JSON.stringify(name.slice(0, 64))} is not a header name`;
  if (value.length > MAX_VALUE_LENGTH || !HEADER_VALUE.test(value)) {
    return `the value of ${name} is not printable ASCII with well-formed nginx variables, at most ${MAX_VALUE_LENGTH} characters`;
  }
  return undefined;
}
