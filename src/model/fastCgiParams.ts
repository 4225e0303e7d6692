// fastcgi-params-configmap: the ConfigMap of fastcgi_param names and values,
// looked up once per Ingress per model run (referencedObjects.ts), so that an
// edit to it reaches nginx without an edit to the Ingress. Each entry is
// checked here (fastCgiAnnotations.ts's parsers); anything wrong (missing,
// another namespace, a bad entry) denies the location (503) with a Warning,
// as ingress-nginx denies it, rather than talking to the FastCGI server
// without the parameters it was told to expect.
import { parseFastCgiParamName, parseFastCgiParamValue } from './annotations/fastCgiAnnotations.js';
import { configMapEntries, reportDeniedConfigMap } from './referencedConfigMap.js';
import type { ReferenceContext } from './referencedObjects.js';
import type { LocationAnnotations } from './types.js';

export const FASTCGI_PARAMS_PROBLEM = 'InvalidFastCgiParams';

export function resolveFastCgiParams(annotations: LocationAnnotations, context: ReferenceContext): LocationAnnotations {
  const fastCgi = annotations.fastCgi;
  if (fastCgi?.paramsFrom === undefined) return annotations;
  const resolved = configMapEntries(fastCgi.paramsFrom, context, paramProblem);
  if (resolved.ok) return { ...annotations, fastCgi: { ...fastCgi, params: resolved.entries } };
  reportDeniedConfigMap(context, 'fastcgi-params-configmap', FASTCGI_PARAMS_PROBLEM, resolved.reason);
  return { ...annotations, fastCgi: { ...fastCgi, denied: resolved.reason } };
}

function paramProblem(name: string, value: string): string | undefined {
  const checkedName = parseFastCgiParamName(name);
  if (!checkedName.ok) return `${JSON.stringify(name.slice(0, 64))} is not ${checkedName.expected}`;
  const checkedValue = parseFastCgiParamValue(value);
  if (!checkedValue.ok) return `the value of ${name} is invalid; expected ${checkedValue.expected}`;
  return undefined;
}
