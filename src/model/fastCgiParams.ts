// fastcgi-params-configmap: the ConfigMap of fastcgi_param names and values,
// looked up once per Ingress per model run (referencedObjects.ts), so that an
// edit to it reaches nginx without an edit to the Ingress. Each entry is
// checked here (fastCgiAnnotations.ts's parsers); anything wrong (missing,
// another namespace, a bad entry) denies the location (503) with a Warning,
// as ingress-nginx denies it, rather than talking to the FastCGI server
// without the parameters it was told to expect.
import { parseFastCgiParamName, parseFastCgiParamValue, type FastCgi } from './annotations/fastCgiAnnotations.js';
import { resolveObjectReference } from './objectReference.js';
import type { ReferenceContext } from './referencedObjects.js';
import type { LocationAnnotations } from './types.js';

export const FASTCGI_PARAMS_PROBLEM = 'InvalidFastCgiParams';

export function resolveFastCgiParams(annotations: LocationAnnotations, context: ReferenceContext): LocationAnnotations {
  const fastCgi = annotations.fastCgi;
  if (fastCgi?.paramsFrom === undefined) return annotations;
  const resolved = fastCgiParams(fastCgi.paramsFrom, context);
  if (resolved.ok) return { ...annotations, fastCgi: { ...fastCgi, params: resolved.params } };
  context.problems.push({
    ingress: context.ingress,
    severity: 'warning',
    reason: FASTCGI_PARAMS_PROBLEM,
    message: `fastcgi-params-configmap: ${resolved.reason}; its locations answer 503`,
  });
  return { ...annotations, fastCgi: { ...fastCgi, denied: resolved.reason } };
}

type Resolved = { ok: true; params: Array<[string, string]> } | { ok: false; reason: string };

function fastCgiParams(reference: NonNullable<FastCgi['paramsFrom']>, context: ReferenceContext): Resolved {
  const key = resolveObjectReference(reference, context.ingress.namespace, context.settings);
  if (!key.ok) return key;
  const configMap = context.lookup.configMap(key.key);
  if (configMap === undefined) return { ok: false, reason: `ConfigMap ${key.key} not found` };
  const params = Object.entries(configMap.data ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [name, value] of params) {
    const checkedName = parseFastCgiParamName(name);
    if (!checkedName.ok)
      return { ok: false, reason: `ConfigMap ${key.key}: ${JSON.stringify(name.slice(0, 64))} is not ${checkedName.expected}` };
    const checkedValue = parseFastCgiParamValue(value);
    if (!checkedValue.ok)
      return { ok: false, reason: `ConfigMap ${key.key}: the value of ${name} is invalid; expected ${checkedValue.expected}` };
  }
  return { ok: true, params };
}
