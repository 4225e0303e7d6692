// What an Ingress points at, so that a change to a Secret or Service can be
// traced back to the Ingresses it affects.
import type { Ingress } from '../kube/objects.js';

/** Annotations (after the prefix) whose value names a Secret as `name` or `namespace/name`. */
const SECRET_ANNOTATIONS = ['auth-secret', 'auth-tls-secret', 'proxy-ssl-secret'];
/** Annotations (after the prefix) whose value names a ConfigMap as `name` or `namespace/name`. */
const CONFIG_MAP_ANNOTATIONS = ['auth-proxy-set-headers', 'custom-headers', 'fastcgi-params-configmap'];
/** Annotations whose value names a Service in the Ingress's namespace. */
const SERVICE_ANNOTATIONS = ['default-backend'];

/** Keys (`namespace/name`) of the Secrets an Ingress uses: TLS and auth secrets. */
export function secretsOfIngress(ingress: Ingress, annotationsPrefix: string): Set<string> {
  const namespace = ingress.metadata?.namespace ?? '';
  const keys = new Set<string>();
  for (const tls of ingress.spec?.tls ?? []) {
    if (tls.secretName) keys.add(`${namespace}/${tls.secretName}`);
  }
  for (const name of SECRET_ANNOTATIONS) {
    const value = ingress.metadata?.annotations?.[`${annotationsPrefix}/${name}`];
    if (value) keys.add(value.includes('/') ? value : `${namespace}/${value}`);
  }
  return keys;
}

/** Keys (`namespace/name`) of the ConfigMaps an Ingress's annotations name. */
export function configMapsOfIngress(ingress: Ingress, annotationsPrefix: string): Set<string> {
  const namespace = ingress.metadata?.namespace ?? '';
  const keys = new Set<string>();
  for (const name of CONFIG_MAP_ANNOTATIONS) {
    const value = ingress.metadata?.annotations?.[`${annotationsPrefix}/${name}`]?.trim();
    if (value) keys.add(value.includes('/') ? value : `${namespace}/${value}`);
  }
  return keys;
}

/** Keys (`namespace/name`) of the Services an Ingress routes to. */
export function servicesOfIngress(ingress: Ingress, annotationsPrefix: string): Set<string> {
  const namespace = ingress.metadata?.namespace ?? '';
  const keys = new Set<string>();
  const add = (name: string | undefined) => {
    if (name) keys.add(`${namespace}/${name}`);
  };
  add(ingress.spec?.defaultBackend?.service?.name);
  for (const rule of ingress.spec?.rules ?? []) {
    for (const path of rule.http?.paths ?? []) add(path.backend.service?.name);
  }
  for (const name of SERVICE_ANNOTATIONS) add(ingress.metadata?.annotations?.[`${annotationsPrefix}/${name}`]);
  return keys;
}
