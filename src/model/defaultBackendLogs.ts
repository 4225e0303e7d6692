// enable-access-log-for-default-backend: ingress-nginx writes no access log
// line for what the catch-all server's own default backend answers (unknown
// hosts, unmatched paths there) unless the ConfigMap asks for it. An Ingress
// that claims the catch-all (a default backend and no rules) logs as its
// annotations say, as any other location.
import type { GlobalSettings } from './settings/globalSettings.js';
import type { LocationAnnotations } from './types.js';

/** The annotations of the catch-all's generated root location while no Ingress claims it. */
export function defaultBackendAnnotations(annotations: LocationAnnotations, settings: GlobalSettings): LocationAnnotations {
  if (settings.enableAccessLogForDefaultBackend) return annotations;
  return { ...annotations, logs: { accessLog: false, rewriteLog: annotations.logs?.rewriteLog ?? false } };
}
