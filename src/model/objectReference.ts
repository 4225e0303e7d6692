// Annotations that name another object (auth-secret, auth-tls-secret,
// proxy-ssl-secret, auth-proxy-set-headers, custom-headers...) as `name` or
// `namespace/name`. The annotation parser checks the spelling; the model
// resolves it against the Ingress's namespace, where ingress-nginx's
// allow-cross-namespace-resources rule applies: another namespace's object is
// used only when the ConfigMap allows it (a tenant must not read another's
// Secrets by naming them).
import type { GlobalSettings } from './settings/globalSettings.js';
import type { ParsedValue } from './settings/valueSyntax.js';

export interface ObjectReference {
  /** undefined: the Ingress's own namespace. */
  namespace: string | undefined;
  name: string;
}

/** A DNS-1123 label (namespaces) and subdomain (object names), as the API server checks them. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

export function parseObjectReference(text: string): ParsedValue<ObjectReference> {
  const parts = text.split('/');
  const expected = 'an object name or namespace/name (lower-case DNS names)';
  if (parts.length > 2) return { ok: false, expected };
  const [namespace, name] = parts.length === 2 ? [parts[0], parts[1]] : [undefined, parts[0]];
  if (name === undefined || !SUBDOMAIN.test(name)) return { ok: false, expected };
  if (namespace !== undefined && !LABEL.test(namespace)) return { ok: false, expected };
  return { ok: true, value: { namespace, name } };
}

export type ResolvedReference = { ok: true; key: string } | { ok: false; reason: string };

/** The store key (`namespace/name`) an Ingress of `ingressNamespace` may use, or why it may not. */
export function resolveObjectReference(
  reference: ObjectReference,
  ingressNamespace: string,
  settings: Pick<GlobalSettings, 'allowCrossNamespaceResources'>,
): ResolvedReference {
  const namespace = reference.namespace ?? ingressNamespace;
  const key = `${namespace}/${reference.name}`;
  if (namespace !== ingressNamespace && !settings.allowCrossNamespaceResources) {
    return {
      ok: false,
      reason: `${key} is in another namespace than the Ingress (${ingressNamespace}); the ConfigMap's allow-cross-namespace-resources is false`,
    };
  }
  return { ok: true, key };
}
