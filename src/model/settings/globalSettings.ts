// The global ConfigMap (`--configmap`) as typed settings, with ingress-nginx's
// key names (in comments) and defaults (config.go NewDefault()): the core
// settings here, and one group per file in keys/ (settingSpec.ts says how).

import type { NextUpstreamCondition } from '../annotations/nextUpstreamAnnotations.js';
import type { LoadBalanceAlgorithm } from '../types.js';
import { GLOBAL_AUTH_DEFAULTS, type GlobalAuthSettings } from './keys/globalAuthSettings.js';
import { HEADER_DEFAULTS, type HeaderSettings } from './keys/headerSettings.js';
import { TLS_DEFAULTS, type TlsSettings } from './keys/tlsSettings.js';
import { LOGGING_DEFAULTS, type LoggingSettings } from './keys/loggingSettings.js';
import { CLIENT_ADDRESS_DEFAULTS, type ClientAddressSettings } from './keys/clientAddressSettings.js';
import { COMPRESSION_DEFAULTS, type CompressionSettings } from './keys/compressionSettings.js';
import { HTTP_TUNING_DEFAULTS, type HttpTuningSettings } from './keys/httpTuningSettings.js';
import { LUA_SHARED_DICT_DEFAULTS, type LuaSharedDictSettings } from './keys/luaSharedDictSettings.js';
import { WORKER_DEFAULTS, type WorkerSettings } from './keys/workerSettings.js';
import { GLOBAL_ACCESS_DEFAULTS, type GlobalAccessSettings } from './keys/globalAccessSettings.js';
import { GLOBAL_SNIPPET_DEFAULTS, type GlobalSnippetSettings } from './keys/globalSnippetSettings.js';
import { RESPONSE_REWRITE_DEFAULTS, type ResponseRewriteSettings } from './keys/responseRewriteSettings.js';
import { GEOIP2_DEFAULTS, type Geoip2Settings } from './keys/geoip2Settings.js';
import { STREAM_PROXY_DEFAULTS, type StreamProxySettings } from './keys/streamProxySettings.js';

export type RiskLevel = 'Low' | 'Medium' | 'High' | 'Critical';

/** The settings that predate the groups in keys/. */
export interface CoreSettings {
  // ---- security ----
  /** allow-snippet-annotations */
  allowSnippetAnnotations: boolean;
  /** annotations-risk-level: annotations above this level are refused. */
  annotationsRiskLevel: RiskLevel;
  /** allow-cross-namespace-resources: annotations may name a Secret or ConfigMap of another namespace. */
  allowCrossNamespaceResources: boolean;
  /** annotation-value-word-blocklist: substrings refused in any annotation value. */
  annotationValueWordBlocklist: string[];
  /** server-tokens */
  serverTokens: boolean;
  /** strict-validate-path-type: Exact and Prefix paths may hold only `/`, letters, digits, `.`, `_` and `-`. */
  strictValidatePathType: boolean;

  // ---- client address and forwarded headers ----
  /** use-forwarded-headers: trust incoming X-Forwarded-* (and real IP from forwarded-for-header, keys/clientAddressSettings.ts) */
  useForwardedHeaders: boolean;
  /** forwarded-for-header: where real IP reads the client's address; upstream, X-Forwarded-For keeps its name */
  forwardedForHeader: string;
  /** compute-full-forwarded-for: with use-forwarded-headers, append the connecting address to an incoming X-Forwarded-For */
  computeFullForwardedFor: boolean;
  /** generate-request-id */
  generateRequestId: boolean;

  // ---- body, buffers, timeouts (seconds unless noted) ----
  /** proxy-body-size (nginx size) */
  proxyBodySize: string;
  /** proxy-connect-timeout */
  proxyConnectTimeout: number;
  /** proxy-read-timeout */
  proxyReadTimeout: number;
  /** proxy-send-timeout */
  proxySendTimeout: number;
  /** proxy-buffering: `off` (ingress-nginx's default) streams responses to the client as they arrive */
  proxyBuffering: 'on' | 'off';
  /** proxy-buffer-size, proxy-buffers-number, proxy-busy-buffers-size (undefined: nginx's), proxy-max-temp-file-size (proxyTuningAnnotations.ts) */
  proxyBufferSize: string;
  proxyBuffersNumber: number;
  proxyBusyBuffersSize: string | undefined;
  proxyMaxTempFileSize: string;
  /** proxy-request-buffering, proxy-http-version, client-body-buffer-size */
  proxyRequestBuffering: 'on' | 'off';
  proxyHttpVersion: '1.0' | '1.1';
  clientBodyBufferSize: string;
  /** proxy-next-upstream, proxy-next-upstream-timeout (seconds, 0: none), proxy-next-upstream-tries, retry-non-idempotent (nextUpstreamAnnotations.ts) */
  proxyNextUpstream: NextUpstreamCondition[];
  proxyNextUpstreamTimeout: number;
  proxyNextUpstreamTries: number;
  retryNonIdempotent: boolean;
  /** service-upstream: backends proxy to their Service's ClusterIP (serviceUpstreamAnnotations.ts) */
  serviceUpstream: boolean;
  /** client-header-timeout */
  clientHeaderTimeout: number;
  /** client-body-timeout */
  clientBodyTimeout: number;
  /** keep-alive */
  keepAlive: number;
  /** keep-alive-requests */
  keepAliveRequests: number;

  // ---- upstreams ----
  /** load-balance: the algorithm of backends without an annotation choosing one */
  loadBalance: LoadBalanceAlgorithm;
  /** upstream-keepalive-connections (0 disables pooling) */
  upstreamKeepaliveConnections: number;
  /** upstream-keepalive-time (nginx time, e.g. 1h) */
  upstreamKeepaliveTime: string;
  /** upstream-keepalive-timeout */
  upstreamKeepaliveTimeout: number;
  /** upstream-keepalive-requests */
  upstreamKeepaliveRequests: number;

  // ---- TLS ----
  /** ssl-protocols */
  sslProtocols: string[];
  /** ssl-ciphers (OpenSSL cipher list) */
  sslCiphers: string;
  /** ssl-redirect */
  sslRedirect: boolean;
  /** force-ssl-redirect */
  forceSslRedirect: boolean;
  /** http-redirect-code */
  httpRedirectCode: 301 | 302 | 307 | 308;
  /** no-tls-redirect-locations */
  noTlsRedirectLocations: string[];
  /** relative-redirects: `absolute_redirect off` for every server (renderRedirects.ts) */
  relativeRedirects: boolean;
  /** hsts */
  hsts: boolean;
  /** hsts-max-age (seconds) */
  hstsMaxAge: number;
  /** hsts-include-subdomains */
  hstsIncludeSubdomains: boolean;
  /** hsts-preload */
  hstsPreload: boolean;
  /** use-http2 */
  useHttp2: boolean;

  // ---- workers ----
  /** worker-processes: a number or "auto" */
  workerProcesses: number | 'auto';
  /** worker-shutdown-timeout (nginx time) */
  workerShutdownTimeout: string;
  /** max-worker-connections (0 = derived) */
  maxWorkerConnections: number;

  // ---- logging ----
  /** log-format-upstream (nginx log_format; admin-owned, may use variables) */
  logFormatUpstream: string;
  /** log-format-escape-json */
  logFormatEscapeJson: boolean;
  /** disable-access-log */
  disableAccessLog: boolean;
  /** error-log-level */
  errorLogLevel: 'debug' | 'info' | 'notice' | 'warn' | 'error' | 'crit' | 'alert' | 'emerg';

  // ---- rate and connection limits (rateLimitAnnotations.ts) ----
  /** limit-req-status-code: the status of a request limit-rps/limit-rpm refuses */
  limitReqStatusCode: number;
  /** limit-conn-status-code: the status of a request limit-connections refuses */
  limitConnStatusCode: number;
  /** limit-conn-zone-variable: what the limits count by (an nginx variable expression) */
  limitConnZoneVariable: string;
  /** custom-http-errors: statuses that locations without the annotation send to --default-backend-service (errorPageAnnotations.ts) */
  customHttpErrors: number[];
  /** limit-rate: kilobytes per second, the default of the annotation (0 = none) */
  limitRate: number;
  /** limit-rate-after: kilobytes, the default of the annotation */
  limitRateAfter: number;
  /** enable-modsecurity: ModSecurity in every location (Portico's modsecurity.conf: detection only). */
  enableModsecurity: boolean;
  /** enable-owasp-modsecurity-crs: the OWASP Core Rule Set too (only with enable-modsecurity). */
  enableOwaspModsecurityCrs: boolean;
  /** global-allowed-response-headers: the header names a custom-headers ConfigMap may set (case-sensitive) */
  globalAllowedResponseHeaders: string[];
}

export const DEFAULT_LOG_FORMAT_UPSTREAM =
  '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" ' +
  '"$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] ' +
  '$upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id';

export type GlobalSettings = CoreSettings &
  GlobalAuthSettings &
  HeaderSettings &
  TlsSettings &
  LoggingSettings &
  ClientAddressSettings &
  CompressionSettings &
  HttpTuningSettings &
  WorkerSettings &
  LuaSharedDictSettings &
  GlobalAccessSettings &
  GlobalSnippetSettings &
  ResponseRewriteSettings &
  Geoip2Settings &
  StreamProxySettings;

const CORE_DEFAULTS: CoreSettings = {
  allowSnippetAnnotations: false,
  allowCrossNamespaceResources: false,
  annotationsRiskLevel: 'High',
  annotationValueWordBlocklist: [],
  serverTokens: false,
  strictValidatePathType: true,
  useForwardedHeaders: false,
  forwardedForHeader: 'X-Forwarded-For',
  computeFullForwardedFor: false,
  generateRequestId: true,
  proxyBodySize: '1m',
  proxyConnectTimeout: 5,
  proxyReadTimeout: 60,
  proxySendTimeout: 60,
  proxyBuffering: 'off',
  proxyBufferSize: '4k',
  proxyBuffersNumber: 4,
  proxyBusyBuffersSize: undefined,
  proxyMaxTempFileSize: '1024m',
  proxyRequestBuffering: 'on',
  proxyHttpVersion: '1.1',
  clientBodyBufferSize: '8k',
  proxyNextUpstream: ['error', 'timeout'],
  proxyNextUpstreamTimeout: 0,
  proxyNextUpstreamTries: 3,
  retryNonIdempotent: false,
  serviceUpstream: false,
  clientHeaderTimeout: 60,
  clientBodyTimeout: 60,
  keepAlive: 75,
  keepAliveRequests: 1000,
  loadBalance: 'round_robin',
  upstreamKeepaliveConnections: 320,
  upstreamKeepaliveTime: '1h',
  upstreamKeepaliveTimeout: 60,
  upstreamKeepaliveRequests: 10000,
  sslProtocols: ['TLSv1.2', 'TLSv1.3'],
  sslCiphers:
    'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:' +
    'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:' +
    'DHE-RSA-AES256-GCM-SHA384:DHE-RSA-AES128-GCM-SHA256',
  sslRedirect: true,
  forceSslRedirect: false,
  httpRedirectCode: 308,
  noTlsRedirectLocations: ['/.well-known/acme-challenge'],
  relativeRedirects: false,
  hsts: true,
  hstsMaxAge: 31536000,
  hstsIncludeSubdomains: true,
  hstsPreload: false,
  useHttp2: true,
  workerProcesses: 'auto',
  workerShutdownTimeout: '240s',
  maxWorkerConnections: 16384,
  logFormatUpstream: DEFAULT_LOG_FORMAT_UPSTREAM,
  logFormatEscapeJson: false,
  disableAccessLog: false,
  errorLogLevel: 'notice',
  limitReqStatusCode: 503,
  limitConnStatusCode: 503,
  limitConnZoneVariable: '$binary_remote_addr',
  customHttpErrors: [],
  limitRate: 0,
  limitRateAfter: 0,
  enableModsecurity: false,
  enableOwaspModsecurityCrs: false,
  globalAllowedResponseHeaders: [],
};

export const DEFAULT_SETTINGS: GlobalSettings = {
  ...CORE_DEFAULTS,
  ...GLOBAL_AUTH_DEFAULTS,
  ...HEADER_DEFAULTS,
  ...TLS_DEFAULTS,
  ...LOGGING_DEFAULTS,
  ...CLIENT_ADDRESS_DEFAULTS,
  ...COMPRESSION_DEFAULTS,
  ...HTTP_TUNING_DEFAULTS,
  ...WORKER_DEFAULTS,
  ...LUA_SHARED_DICT_DEFAULTS,
  ...GLOBAL_ACCESS_DEFAULTS,
  ...GLOBAL_SNIPPET_DEFAULTS,
  ...RESPONSE_REWRITE_DEFAULTS,
  ...GEOIP2_DEFAULTS,
  ...STREAM_PROXY_DEFAULTS,
};
