// The names an Ingress brings into nginx.conf's log variables: its namespace
// and name, and the Service name and port of each backend. nginx.conf joins
// them with spaces into one value that `map`s split again
// (dataplane/nginx/render/renderLogVariables.ts), so none may hold a space.
// The API server admits only lower-case DNS names there (and port names of
// the same characters); manifest mode, which has no API server, is held to
// the same characters here.
import type { Ingress } from '../kube/objects.js';

/** What namespaces, object names and port names are made of (DNS-1123 labels and subdomains, IANA service names). */
const KUBERNETES_NAME = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

interface BackendService {
  name: string;
  port?: { number?: number; name?: string };
}

/** Problems with the Ingress's names; empty when it may be served. */
export function ingressNameErrors(ingress: Ingress): string[] {
  const errors: string[] = [];
  const check = (what: string, name: string | undefined): void => {
    if (name !== undefined && !KUBERNETES_NAME.test(name)) {
      errors.push(`${what} ${JSON.stringify(name.slice(0, 64))} is not a Kubernetes name (lower-case letters, digits, "-" and ".")`);
    }
  };
  check('namespace', ingress.metadata?.namespace);
  check('name', ingress.metadata?.name);
  const services: BackendService[] = [];
  if (ingress.spec?.defaultBackend?.service) services.push(ingress.spec.defaultBackend.service);
  for (const rule of ingress.spec?.rules ?? []) {
    for (const path of rule.http?.paths ?? []) if (path.backend.service) services.push(path.backend.service);
  }
  for (const service of services) {
    check('backend service', service.name);
    check('backend service port', service.port?.name);
  }
  return errors;
}
