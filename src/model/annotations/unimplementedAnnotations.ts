// ingress-nginx's annotations that Portico does not implement yet, with their
// risk levels (docs/user-guide/nginx-configuration/annotations-risk.md), so
// the risk gate refuses what ingress-nginx refuses even before they exist here.
// Most are ignored with a warning. Those whose absence would let through
// requests that ingress-nginx refuses are refused instead: ignoring them would
// fail open.
import type { RiskLevel } from '../settings/globalSettings.js';

export interface UnimplementedAnnotationGroup {
  /** Set when ignoring the annotation would fail open: the Ingress is refused, with this reason. */
  unsafeToIgnore?: string;
  risks: Readonly<Record<string, RiskLevel>>;
}

export const UNIMPLEMENTED_ANNOTATION_GROUPS: readonly UnimplementedAnnotationGroup[] = [
  {
    unsafeToIgnore: 'ignoring it would serve the Ingress without the authentication it asks for',
    risks: {
      // external authentication
      'auth-url': 'High',
      'auth-signin': 'High',
      'auth-signin-redirect-param': 'Medium',
      'auth-method': 'Low',
      'auth-response-headers': 'Medium',
      'auth-proxy-set-headers': 'Medium',
      'auth-request-redirect': 'Medium',
      'auth-cache-key': 'Medium',
      'auth-cache-duration': 'Medium',
      'auth-always-set-cookie': 'Low',
      'auth-keepalive': 'Low',
      'auth-keepalive-requests': 'Low',
      'auth-keepalive-timeout': 'Low',
      'auth-keepalive-share-vars': 'Low',
      // client certificates
      'auth-tls-secret': 'Medium',
      'auth-tls-verify-client': 'Medium',
      'auth-tls-verify-depth': 'Low',
      'auth-tls-error-page': 'High',
      'auth-tls-pass-certificate-to-upstream': 'Low',
      'auth-tls-match-cn': 'High',
    },
  },
  {
    unsafeToIgnore: 'ignoring it would serve the Ingress without the request limits it asks for',
    risks: { 'limit-rps': 'Low', 'limit-rpm': 'Low', 'limit-connections': 'Low' },
  },
  {
    unsafeToIgnore: 'ignoring it would serve the Ingress without the web application firewall it asks for',
    risks: { 'enable-modsecurity': 'Low', 'enable-owasp-core-rules': 'Low', 'modsecurity-transaction-id': 'High' },
  },
  {
    unsafeToIgnore: 'ignoring it would connect to the backend without the TLS settings it asks for (such as certificate verification)',
    risks: {
      'proxy-ssl-secret': 'Medium',
      'proxy-ssl-verify': 'Low',
      'proxy-ssl-verify-depth': 'Low',
      'proxy-ssl-name': 'High',
      'proxy-ssl-server-name': 'Low',
      'proxy-ssl-ciphers': 'Medium',
      'proxy-ssl-protocols': 'Low',
    },
  },
  {
    risks: {
      // rewrite and redirects
      'app-root': 'Medium',
      'preserve-trailing-slash': 'Medium',
      'permanent-redirect': 'Medium',
      'permanent-redirect-code': 'Low',
      'temporal-redirect': 'Medium',
      'temporal-redirect-code': 'Low',
      'from-to-www-redirect': 'Low',
      'relative-redirects': 'Low',
      'x-forwarded-prefix': 'Medium',
      'use-port-in-redirects': 'Low',
      'upstream-vhost': 'Low',
      // proxy tuning
      'proxy-buffer-size': 'Low',
      'proxy-buffers-number': 'Low',
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
      // bandwidth limits, and rate limit modifiers (no effect without limit-rps, limit-rpm or limit-connections)
      'limit-burst-multiplier': 'Low',
      'limit-rate': 'Low',
      'limit-rate-after': 'Low',
      'limit-allowlist': 'Low',
      'limit-whitelist': 'Low',
      // access and authentication modifiers that only loosen
      'enable-global-auth': 'Low',
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
      // hosts and mirroring
      'server-alias': 'High',
      'mirror-target': 'High',
      'mirror-host': 'High',
      'mirror-request-body': 'Low',
      // logs and telemetry
      'enable-access-log': 'Low',
      'enable-rewrite-log': 'Low',
      'enable-opentelemetry': 'Low',
      'opentelemetry-trust-incoming-span': 'Low',
      'opentelemetry-operation-name': 'Medium',
      // FastCGI and HTTP/2 push
      'fastcgi-index': 'Medium',
      'fastcgi-params-configmap': 'Medium',
      'http2-push-preload': 'Low',
    },
  },
];
