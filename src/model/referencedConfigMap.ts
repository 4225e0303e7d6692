// What the annotations that name a ConfigMap of entries share (auth-proxy-set-headers,
// custom-headers, fastcgi-params-configmap): the reference resolved by the
// cross-namespace rule, the ConfigMap looked up in the store, its entries sorted
// by key (so two runs render alike) and each checked; and, when any of it fails,
// the Warning that says the Ingress's locations answer 503 instead.
import { resolveObjectReference, type ObjectReference } from './objectReference.js';
import type { ReferenceContext } from './referencedObjects.js';

export type ConfigMapEntries = { ok: true; entries: Array<[string, string]> } | { ok: false; reason: string };

/** `check` returns why an entry is unusable, or undefined; the reason is prefixed with the ConfigMap's key. */
export function configMapEntries(
  reference: ObjectReference,
  context: ReferenceContext,
  check: (name: string, value: string) => string | undefined,
): ConfigMapEntries {
  const key = resolveObjectReference(reference, context.ingress.namespace, context.settings);
  if (!key.ok) return key;
  const configMap = context.lookup.configMap(key.key);
  if (configMap === undefined) return { ok: false, reason: `ConfigMap ${key.key} not found` };
  const entries = Object.entries(configMap.data ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [name, value] of entries) {
    const problem = check(name, value);
    if (problem !== undefined) return { ok: false, reason: `ConfigMap ${key.key}: ${problem}` };
  }
  return { ok: true, entries };
}

/** The Warning Event for an unusable ConfigMap named by `annotation`: the locations concerned deny (503). */
export function reportDeniedConfigMap(context: ReferenceContext, annotation: string, problem: string, reason: string): void {
  context.problems.push({
    ingress: context.ingress,
    severity: 'warning',
    reason: problem,
    message: `${annotation}: ${reason}; its locations answer 503`,
  });
}
