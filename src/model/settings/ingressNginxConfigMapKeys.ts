// Every global ConfigMap key ingress-nginx v1.15.1 documents
// (docs/user-guide/nginx-configuration/configmap.md), in its order, with its
// type and default as that table gives them, plus the one key its config.go reads
// that the table leaves out (global-auth-always-set-cookie, proxy-max-temp-file-size, proxy-http-version, ssl-early-data, proxy-redirect-to, disable-stream-access-log).
// Portico implements a part of
// them (parseGlobalSettings.ts); this list is the whole contract, which
// docs/compatibility.md measures Portico against (tools/compatibility.ts).

export interface IngressNginxConfigMapKey {
  key: string;
  /** The type configmap.md gives. */
  type: string;
  /** ingress-nginx's default, as ConfigMap text ('' for none). */
  default: string;
  /** Set when Debian's nginx has no module for the key: Portico cannot implement it with the packages it runs on. */
  missingModule?: string;
  /** Set when Portico deliberately does not implement the key: why (logged, and recorded on the ConfigMap, when the key is set). */
  refusedBecause?: string;
  note?: string;
}

/** nginx-status-ipv4/ipv6-whitelist guard the /nginx_status location of ingress-nginx's catch-all server on the public ports. */
const NO_PUBLIC_NGINX_STATUS =
  'Portico serves /nginx_status only on its status server, which listens on 127.0.0.1 alone (for its own metrics), not on the public ports';

/** The Jaeger keys (the module was replaced by OpenTelemetry) and use-geoip (GeoIP2 replaced it) are still documented. */
const NO_LONGER_READ = 'documented, but ingress-nginx v1.15.1 itself no longer reads it';

/** nginx 1.22 still parses the directives but ignores them with a warning. */
const HTTP2_HEADER_LIMITS_OBSOLETE =
  'obsolete since nginx 1.19.7 (nginx 1.22 ignores the directive with a warning): large-client-header-buffers limits HTTP/2 headers too';

export const INGRESS_NGINX_CONFIGMAP_KEYS: readonly IngressNginxConfigMapKey[] = [
  { key: 'add-headers', type: 'string', default: '' },
  { key: 'allow-backend-server-header', type: 'bool', default: 'false' },
  { key: 'allow-cross-namespace-resources', type: 'bool', default: 'false' },
  { key: 'allow-snippet-annotations', type: 'bool', default: 'false' },
  { key: 'annotations-risk-level', type: 'string', default: 'High' },
  { key: 'annotation-value-word-blocklist', type: 'string array', default: '' },
  { key: 'hide-headers', type: 'string array', default: '' },
  { key: 'access-log-params', type: 'string', default: '' },
  {
    key: 'access-log-path',
    type: 'string',
    default: '/var/log/nginx/access.log',
    note: "unset, Portico's own logs/access.log in its nginx prefix",
  },
  { key: 'http-access-log-path', type: 'string', default: '' },
  { key: 'stream-access-log-path', type: 'string', default: '' },
  { key: 'enable-access-log-for-default-backend', type: 'bool', default: 'false' },
  {
    key: 'error-log-path',
    type: 'string',
    default: '/var/log/nginx/error.log',
    note: "unset, Portico's own logs/error.log in its nginx prefix",
  },
  { key: 'enable-modsecurity', type: 'bool', default: 'false' },
  { key: 'modsecurity-snippet', type: 'string', default: '' },
  { key: 'enable-owasp-modsecurity-crs', type: 'bool', default: 'false' },
  { key: 'client-header-buffer-size', type: 'string', default: '1k' },
  { key: 'client-header-timeout', type: 'int', default: '60' },
  { key: 'client-body-buffer-size', type: 'string', default: '8k' },
  { key: 'client-body-timeout', type: 'int', default: '60' },
  { key: 'disable-access-log', type: 'bool', default: 'false' },
  { key: 'disable-ipv6', type: 'bool', default: 'false' },
  {
    key: 'disable-ipv6-dns',
    type: 'bool',
    default: 'false',
    refusedBecause:
      'Portico renders no nginx resolver: the controller resolves ExternalName backends itself, and auth and mirror targets that are names are refused',
  },
  { key: 'enable-underscores-in-headers', type: 'bool', default: 'false' },
  {
    key: 'enable-ocsp',
    type: 'bool',
    default: 'false',
    refusedBecause:
      "certificates are served from Lua, where nginx's ssl_stapling does not apply; stapling needs OCSP responses fetched from each certificate's responder and pushed with the certificate, which Portico does not do",
  },
  { key: 'ignore-invalid-headers', type: 'bool', default: 'true' },
  { key: 'retry-non-idempotent', type: 'bool', default: 'false' },
  { key: 'error-log-level', type: 'string', default: 'notice' },
  {
    key: 'http2-max-field-size',
    type: 'string',
    default: '',
    note: 'deprecated by ingress-nginx in favour of large-client-header-buffers',
    refusedBecause: HTTP2_HEADER_LIMITS_OBSOLETE,
  },
  {
    key: 'http2-max-header-size',
    type: 'string',
    default: '',
    note: 'deprecated by ingress-nginx in favour of large-client-header-buffers',
    refusedBecause: HTTP2_HEADER_LIMITS_OBSOLETE,
  },
  {
    key: 'http2-max-requests',
    type: 'int',
    default: '0',
    note: 'deprecated by ingress-nginx in favour of keep-alive-requests',
    refusedBecause:
      'obsolete since nginx 1.19.7 (nginx 1.22 ignores http2_max_requests with a warning): keep-alive-requests limits HTTP/2 connections too',
  },
  { key: 'http2-max-concurrent-streams', type: 'int', default: '128' },
  { key: 'hsts', type: 'bool', default: 'true' },
  { key: 'hsts-include-subdomains', type: 'bool', default: 'true' },
  { key: 'hsts-max-age', type: 'string', default: '31536000' },
  { key: 'hsts-preload', type: 'bool', default: 'false' },
  { key: 'keep-alive', type: 'int', default: '75' },
  { key: 'keep-alive-requests', type: 'int', default: '1000' },
  { key: 'large-client-header-buffers', type: 'string', default: '4 8k' },
  { key: 'log-format-escape-none', type: 'bool', default: 'false' },
  { key: 'log-format-escape-json', type: 'bool', default: 'false' },
  {
    key: 'log-format-upstream',
    type: 'string',
    default:
      '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id',
  },
  {
    key: 'log-format-stream',
    type: 'string',
    default: '[$remote_addr] [$time_local] $protocol $status $bytes_sent $bytes_received $session_time',
  },
  { key: 'enable-multi-accept', type: 'bool', default: 'true' },
  { key: 'max-worker-connections', type: 'int', default: '16384' },
  { key: 'max-worker-open-files', type: 'int', default: '0' },
  { key: 'map-hash-bucket-size', type: 'int', default: '64' },
  { key: 'nginx-status-ipv4-whitelist', type: '[]string', default: '127.0.0.1', refusedBecause: NO_PUBLIC_NGINX_STATUS },
  { key: 'nginx-status-ipv6-whitelist', type: '[]string', default: '::1', refusedBecause: NO_PUBLIC_NGINX_STATUS },
  { key: 'proxy-real-ip-cidr', type: '[]string', default: '0.0.0.0/0' },
  { key: 'proxy-set-headers', type: 'string', default: '' },
  { key: 'server-name-hash-max-size', type: 'int', default: '1024' },
  { key: 'server-name-hash-bucket-size', type: 'int', default: '<size of the processor’s cache line>' },
  { key: 'proxy-headers-hash-max-size', type: 'int', default: '512' },
  { key: 'proxy-headers-hash-bucket-size', type: 'int', default: '64' },
  { key: 'reuse-port', type: 'bool', default: 'true' },
  { key: 'server-tokens', type: 'bool', default: 'false' },
  {
    key: 'ssl-ciphers',
    type: 'string',
    default:
      'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-AES128-GCM-SHA256',
  },
  { key: 'ssl-ecdh-curve', type: 'string', default: 'auto' },
  { key: 'ssl-dh-param', type: 'string', default: '' },
  { key: 'ssl-protocols', type: 'string', default: 'TLSv1.2 TLSv1.3' },
  { key: 'ssl-session-cache', type: 'bool', default: 'true' },
  { key: 'ssl-session-cache-size', type: 'string', default: '10m' },
  { key: 'ssl-session-tickets', type: 'bool', default: 'false' },
  { key: 'ssl-session-ticket-key', type: 'string', default: '<Randomly Generated>' },
  { key: 'ssl-session-timeout', type: 'string', default: '10m' },
  { key: 'ssl-buffer-size', type: 'string', default: '4k' },
  {
    key: 'ssl-early-data',
    type: 'bool',
    default: 'false',
    note: 'configmap.md describes it in a section of its own but leaves it out of its table; config.go reads it',
  },
  { key: 'use-proxy-protocol', type: 'bool', default: 'false' },
  { key: 'proxy-protocol-header-timeout', type: 'string', default: '5s' },
  { key: 'enable-aio-write', type: 'bool', default: 'true' },
  { key: 'use-gzip', type: 'bool', default: 'false' },
  { key: 'use-geoip', type: 'bool', default: 'true', refusedBecause: NO_LONGER_READ },
  { key: 'use-geoip2', type: 'bool', default: 'false' },
  { key: 'geoip2-autoreload-in-minutes', type: 'int', default: '0' },
  { key: 'enable-brotli', type: 'bool', default: 'false', missingModule: 'brotli' },
  { key: 'brotli-level', type: 'int', default: '4', missingModule: 'brotli' },
  { key: 'brotli-min-length', type: 'int', default: '20', missingModule: 'brotli' },
  {
    key: 'brotli-types',
    type: 'string',
    missingModule: 'brotli',
    default:
      'application/xml+rss application/atom+xml application/javascript application/x-javascript application/json application/rss+xml application/vnd.ms-fontobject application/x-font-ttf application/x-web-app-manifest+json application/xhtml+xml application/xml font/opentype image/svg+xml image/x-icon text/css text/javascript text/plain text/x-component',
  },
  { key: 'use-http2', type: 'bool', default: 'true' },
  { key: 'gzip-disable', type: 'string', default: '' },
  { key: 'gzip-level', type: 'int', default: '1' },
  { key: 'gzip-min-length', type: 'int', default: '256' },
  {
    key: 'gzip-types',
    type: 'string',
    default:
      'application/atom+xml application/javascript application/x-javascript application/json application/rss+xml application/vnd.ms-fontobject application/x-font-ttf application/x-web-app-manifest+json application/xhtml+xml application/xml font/opentype image/svg+xml image/x-icon text/css text/javascript text/plain text/x-component',
  },
  { key: 'worker-processes', type: 'string', default: '<Number of CPUs>', note: "Portico's `auto` is nginx's one worker per CPU" },
  { key: 'worker-cpu-affinity', type: 'string', default: '' },
  { key: 'worker-shutdown-timeout', type: 'string', default: '240s' },
  {
    key: 'enable-serial-reloads',
    type: 'bool',
    default: 'false',
    refusedBecause:
      'Portico reloads one configuration at a time and only the newest of those waiting, and pushes endpoints, certificates and canary weights without a reload; it does not wait for the old workers to exit before the next reload',
  },
  { key: 'load-balance', type: 'string', default: 'round_robin' },
  { key: 'variables-hash-bucket-size', type: 'int', default: '256' },
  { key: 'variables-hash-max-size', type: 'int', default: '2048' },
  { key: 'upstream-keepalive-connections', type: 'int', default: '320' },
  { key: 'upstream-keepalive-time', type: 'string', default: '1h' },
  { key: 'upstream-keepalive-timeout', type: 'int', default: '60' },
  { key: 'upstream-keepalive-requests', type: 'int', default: '10000' },
  { key: 'limit-conn-zone-variable', type: 'string', default: '$binary_remote_addr' },
  { key: 'proxy-stream-timeout', type: 'string', default: '600s' },
  { key: 'proxy-stream-next-upstream', type: 'bool', default: 'true' },
  { key: 'proxy-stream-next-upstream-timeout', type: 'string', default: '600s' },
  { key: 'proxy-stream-next-upstream-tries', type: 'int', default: '3' },
  { key: 'proxy-stream-responses', type: 'int', default: '1' },
  { key: 'bind-address', type: '[]string', default: '' },
  { key: 'use-forwarded-headers', type: 'bool', default: 'false' },
  { key: 'enable-real-ip', type: 'bool', default: 'false' },
  { key: 'forwarded-for-header', type: 'string', default: 'X-Forwarded-For' },
  { key: 'forwarded-for-proxy-protocol-header', type: 'string', default: 'X-Forwarded-For-Proxy-Protocol' },
  { key: 'compute-full-forwarded-for', type: 'bool', default: 'false' },
  { key: 'proxy-add-original-uri-header', type: 'bool', default: 'false' },
  { key: 'generate-request-id', type: 'bool', default: 'true' },
  { key: 'jaeger-collector-host', type: 'string', default: '', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-collector-port', type: 'int', default: '6831', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-endpoint', type: 'string', default: '', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-service-name', type: 'string', default: 'nginx', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-propagation-format', type: 'string', default: 'jaeger', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-sampler-type', type: 'string', default: 'const', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-sampler-param', type: 'string', default: '1', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-sampler-host', type: 'string', default: 'http://127.0.0.1', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-sampler-port', type: 'int', default: '5778', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-trace-context-header-name', type: 'string', default: 'uber-trace-id', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-debug-header', type: 'string', default: 'uber-debug-id', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-baggage-header', type: 'string', default: 'jaeger-baggage', refusedBecause: NO_LONGER_READ },
  { key: 'jaeger-trace-baggage-header-prefix', type: 'string', default: 'uberctx-', refusedBecause: NO_LONGER_READ },
  { key: 'enable-opentelemetry', type: 'bool', default: 'false', missingModule: 'OpenTelemetry' },
  { key: 'opentelemetry-trust-incoming-span', type: 'bool', default: 'true', missingModule: 'OpenTelemetry' },
  { key: 'opentelemetry-operation-name', type: 'string', default: '', missingModule: 'OpenTelemetry' },
  {
    key: 'opentelemetry-config',
    type: 'string',
    default: '/etc/ingress-controller/telemetry/opentelemetry.toml',
    missingModule: 'OpenTelemetry',
  },
  { key: 'otlp-collector-host', type: 'string', default: '', missingModule: 'OpenTelemetry' },
  { key: 'otlp-collector-port', type: 'int', default: '4317', missingModule: 'OpenTelemetry' },
  { key: 'otel-max-queuesize', type: 'int', default: '2048', missingModule: 'OpenTelemetry' },
  { key: 'otel-schedule-delay-millis', type: 'int', default: '5000', missingModule: 'OpenTelemetry' },
  { key: 'otel-max-export-batch-size', type: 'int', default: '512', missingModule: 'OpenTelemetry' },
  { key: 'otel-service-name', type: 'string', default: 'nginx', missingModule: 'OpenTelemetry' },
  { key: 'otel-sampler', type: 'string', default: 'AlwaysOn', missingModule: 'OpenTelemetry' },
  { key: 'otel-sampler-parent-based', type: 'bool', default: 'true', missingModule: 'OpenTelemetry' },
  { key: 'otel-sampler-ratio', type: 'float', default: '0.01', missingModule: 'OpenTelemetry' },
  { key: 'main-snippet', type: 'string', default: '' },
  { key: 'http-snippet', type: 'string', default: '' },
  { key: 'server-snippet', type: 'string', default: '' },
  { key: 'stream-snippet', type: 'string', default: '' },
  { key: 'location-snippet', type: 'string', default: '' },
  { key: 'custom-http-errors', type: '[]int', default: '' },
  { key: 'proxy-body-size', type: 'string', default: '1m' },
  { key: 'proxy-connect-timeout', type: 'int', default: '5' },
  { key: 'proxy-read-timeout', type: 'int', default: '60' },
  { key: 'proxy-send-timeout', type: 'int', default: '60' },
  { key: 'proxy-buffers-number', type: 'int', default: '4' },
  { key: 'proxy-buffer-size', type: 'string', default: '4k' },
  { key: 'proxy-busy-buffers-size', type: 'string', default: '' },
  { key: 'proxy-cookie-path', type: 'string', default: 'off' },
  { key: 'proxy-cookie-domain', type: 'string', default: 'off' },
  { key: 'proxy-next-upstream', type: 'string', default: 'error timeout' },
  { key: 'proxy-next-upstream-timeout', type: 'int', default: '0' },
  { key: 'proxy-next-upstream-tries', type: 'int', default: '3' },
  { key: 'proxy-redirect-from', type: 'string', default: 'off' },
  { key: 'proxy-request-buffering', type: 'string', default: 'on' },
  { key: 'ssl-redirect', type: 'bool', default: 'true' },
  { key: 'force-ssl-redirect', type: 'bool', default: 'false' },
  { key: 'denylist-source-range', type: '[]string', default: '' },
  { key: 'whitelist-source-range', type: '[]string', default: '' },
  { key: 'skip-access-log-urls', type: '[]string', default: '' },
  { key: 'limit-rate', type: 'int', default: '0' },
  { key: 'limit-rate-after', type: 'int', default: '0' },
  { key: 'lua-shared-dicts', type: 'string', default: '' },
  { key: 'http-redirect-code', type: 'int', default: '308' },
  { key: 'proxy-buffering', type: 'string', default: 'off' },
  { key: 'limit-req-status-code', type: 'int', default: '503' },
  { key: 'limit-conn-status-code', type: 'int', default: '503' },
  { key: 'enable-syslog', type: 'bool', default: 'false' },
  { key: 'syslog-host', type: 'string', default: '' },
  { key: 'syslog-port', type: 'int', default: '514' },
  { key: 'no-tls-redirect-locations', type: 'string', default: '/.well-known/acme-challenge' },
  { key: 'global-allowed-response-headers', type: 'string', default: '' },
  { key: 'global-auth-url', type: 'string', default: '' },
  { key: 'global-auth-method', type: 'string', default: '' },
  { key: 'global-auth-signin', type: 'string', default: '' },
  { key: 'global-auth-signin-redirect-param', type: 'string', default: 'rd' },
  { key: 'global-auth-response-headers', type: 'string', default: '' },
  { key: 'global-auth-request-redirect', type: 'string', default: '' },
  { key: 'global-auth-snippet', type: 'string', default: '' },
  { key: 'global-auth-cache-key', type: 'string', default: '' },
  { key: 'global-auth-cache-duration', type: 'string', default: '200 202 401 5m' },
  {
    key: 'global-auth-always-set-cookie',
    type: 'bool',
    default: 'false',
    note: 'not in configmap.md, but read by ingress-nginx v1.15.1 (config.go) and named by the issue',
  },
  { key: 'no-auth-locations', type: 'string', default: '/.well-known/acme-challenge' },
  { key: 'block-cidrs', type: '[]string', default: '' },
  { key: 'block-user-agents', type: '[]string', default: '' },
  { key: 'block-referers', type: '[]string', default: '' },
  {
    key: 'proxy-ssl-location-only',
    type: 'bool',
    default: 'false',
    refusedBecause:
      "Portico always applies proxy-ssl-* in the annotated Ingress's locations only (as with true): a host's other locations never inherit another Ingress's backend TLS Secret",
  },
  { key: 'default-type', type: 'string', default: 'text/html' },
  { key: 'service-upstream', type: 'bool', default: 'false' },
  { key: 'ssl-reject-handshake', type: 'bool', default: 'false' },
  { key: 'debug-connections', type: '[]string', default: '' },
  { key: 'strict-validate-path-type', type: 'bool', default: 'true' },
  { key: 'grpc-buffer-size-kb', type: 'int', default: '0' },
  { key: 'relative-redirects', type: 'bool', default: 'false ||' },
  // Not in configmap.md either, but read by config.go (defaults.Backend) as the proxy annotations' defaults.
  {
    key: 'proxy-max-temp-file-size',
    type: 'string',
    default: '1024m',
    note: 'not in configmap.md, but read by ingress-nginx v1.15.1 (config.go)',
  },
  { key: 'proxy-http-version', type: 'string', default: '1.1', note: 'not in configmap.md, but read by ingress-nginx v1.15.1 (config.go)' },
  { key: 'proxy-redirect-to', type: 'string', default: 'off', note: 'not in configmap.md, but read by ingress-nginx v1.15.1 (config.go)' },
  // Read by config.go and the template's stream block (with disable-access-log), not in configmap.md.
  {
    key: 'disable-stream-access-log',
    type: 'bool',
    default: 'false',
    note: 'not in configmap.md, but read by ingress-nginx v1.15.1 (config.go)',
  },
];

const KEY_BY_NAME: ReadonlyMap<string, IngressNginxConfigMapKey> = new Map(INGRESS_NGINX_CONFIGMAP_KEYS.map((key) => [key.key, key]));

/**
 * `refused`: Portico does not implement it on purpose; `missing-module`: Debian's nginx has no module for it;
 * `not-implemented`: an ingress-nginx key Portico does not implement yet; `unknown`: not an ingress-nginx key.
 */
export type IgnoredKeyKind = 'refused' | 'missing-module' | 'not-implemented' | 'unknown';

/** Why Portico ignores a ConfigMap key it does not implement: what its Event on the ConfigMap and `portico check` say. */
export function classifyIgnoredKey(name: string): { kind: IgnoredKeyKind; reason: string } {
  const key = KEY_BY_NAME.get(name);
  if (key === undefined) return { kind: 'unknown', reason: 'not a ConfigMap key of ingress-nginx v1.15.1; ignored' };
  if (key.refusedBecause !== undefined) return { kind: 'refused', reason: key.refusedBecause };
  if (key.missingModule !== undefined) {
    return { kind: 'missing-module', reason: `Debian 12's nginx has no ${key.missingModule} module, so Portico cannot apply it; ignored` };
  }
  const note = key.note === undefined ? '' : ` (${key.note})`;
  return { kind: 'not-implemented', reason: `not implemented by Portico yet; ignored${note}` };
}
