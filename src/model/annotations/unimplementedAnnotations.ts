// ingress-nginx's annotations that Portico does not implement yet, with their
// risk levels (docs/user-guide/nginx-configuration/annotations-risk.md), so
// the risk gate refuses what ingress-nginx refuses even before they exist here.
// Most are ignored with a warning. Those whose absence would let through
// requests that ingress-nginx refuses are refused instead: ignoring them would
// fail open. Those Debian's nginx has no module for are ignored with a warning
// that says so: Portico cannot implement them on the nginx it runs.
import type { RiskLevel } from '../settings/globalSettings.js';

export interface UnimplementedAnnotationGroup {
  /** Set when ignoring the annotation would fail open: the Ingress is refused, with this reason. */
  unsafeToIgnore?: string;
  /** Set when Debian's nginx has no module for the annotation (the name of the module's feature). */
  missingModule?: string;
  risks: Readonly<Record<string, RiskLevel>>;
}

export const UNIMPLEMENTED_ANNOTATION_GROUPS: readonly UnimplementedAnnotationGroup[] = [
  {
    risks: {
      // rewrite and redirects
      'app-root': 'Medium',
      'preserve-trailing-slash': 'Medium',
      'permanent-redirect': 'Medium',
      'permanent-redirect-code': 'Low',
      'temporal-redirect': 'Medium',
      'temporal-redirect-code': 'Low',
      'relative-redirects': 'Low',
      'x-forwarded-prefix': 'Medium',
      'use-port-in-redirects': 'Low',
      'upstream-vhost': 'Low',
      // proxy tuning
      'proxy-buffer-size': 'Low',
      'proxy-buffers-number': 'Low',
      'proxy-busy-buffers-size': 'Low',
      'proxy-request-buffering': 'Low',
      'proxy-max-temp-file-size': 'Low',
      'proxy-http-version': 'Low',
      'proxy-next-upstream': 'Medium',
      'proxy-next-upstream-timeout': 'Low',
      'proxy-next-upstream-tries': 'Low',
      'proxy-cookie-domain': 'Medium',
      'proxy-cookie-path': 'Medium',
      'proxy-redirect-from': 'Medium',
      'proxy-redirect-to': 'Medium',
      'client-body-buffer-size': 'Low',
      'connection-proxy-header': 'Low',
      // frontend TLS
      'ssl-ciphers': 'Low',
      'ssl-prefer-server-ciphers': 'Low',
      'ssl-passthrough': 'Low',
      // CORS
      'enable-cors': 'Low',
      'cors-allow-origin': 'Medium',
      'cors-allow-methods': 'Medium',
      'cors-allow-headers': 'Medium',
      'cors-expose-headers': 'Medium',
      'cors-allow-credentials': 'Low',
      'cors-max-age': 'Low',
      // session affinity
      'session-cookie-partitioned': 'Low',
      // upstreams
      'service-upstream': 'Low',
      // errors, headers and backends
      'custom-http-errors': 'Low',
      'custom-headers': 'Medium',
      'disable-proxy-intercept-errors': 'Low',
      'default-backend': 'Low',
      // logs
      'enable-access-log': 'Low',
      'enable-rewrite-log': 'Low',
      // FastCGI and HTTP/2 push
      'fastcgi-index': 'Medium',
      'fastcgi-params-configmap': 'Medium',
      'http2-push-preload': 'Low',
    },
  },
  {
    // Debian 12 packages no OpenTelemetry module for nginx (ingress-nginx builds its own).
    missingModule: 'OpenTelemetry',
    risks: { 'enable-opentelemetry': 'Low', 'opentelemetry-trust-incoming-span': 'Low', 'opentelemetry-operation-name': 'Medium' },
  },
];
