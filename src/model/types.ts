// The desired configuration: what the model computes from a store snapshot and
// what the data plane renders. Plain data (JSON-serialisable, sorted), so two
// configurations compare exactly and cheaply, and nothing here knows nginx
// syntax or Kubernetes clients.
import type { ErrorPages } from './annotations/errorPageAnnotations.js';
import type { CustomHeaders } from './annotations/customHeadersAnnotations.js';
import type { ResponseRewrites } from './annotations/responseRewriteAnnotations.js';
import type { UpstreamHeaders } from './annotations/upstreamHeaderAnnotations.js';
import type { FastCgi } from './annotations/fastCgiAnnotations.js';
import type { HostServerSnippet } from './hostServerSnippet.js';
import type { LogAnnotations } from './annotations/logAnnotations.js';
import type { HostTlsCiphers, TlsCipherAnnotations } from './annotations/tlsCipherAnnotations.js';
import type { Redirects } from './annotations/redirectAnnotations.js';
import type { HostAlias } from './annotations/serverAliasAnnotations.js';
import type { Mirror } from './annotations/mirrorAnnotations.js';
import type { ObjectReference } from './objectReference.js';
import type { NextUpstream } from './annotations/nextUpstreamAnnotations.js';
import type { ProxyTuning } from './annotations/proxyTuningAnnotations.js';
import type { GlobalSettings } from './settings/globalSettings.js';
import type { Cors } from './annotations/corsAnnotations.js';

/** How a location matches request paths. */
export type PathMatch =
  /** The whole path, case-sensitive. */
  | 'exact'
  /** Element-wise prefix (`/foo` matches `/foo` and `/foo/...`, not `/foobar`). */
  | 'prefix'
  /** ingress-nginx regex mode: case-insensitive regex anchored at the start. */
  | 'regex';

/** AUTO_HTTP: the client's scheme (HTTP or HTTPS) to the backend. */
export type BackendProtocol = 'HTTP' | 'HTTPS' | 'GRPC' | 'GRPCS' | 'FCGI' | 'AUTO_HTTP';

/** Settings from annotations that apply to every location of one Ingress. */
export interface LocationAnnotations {
  rewrite: {
    /** `rewrite-target`: replacement for the matched path (may use `$1`... captures). */
    target?: string;
    /** `use-regex`. */
    useRegex: boolean;
    /** `ssl-redirect` (defaults to the ConfigMap's). */
    sslRedirect: boolean;
    /** `force-ssl-redirect`: redirect even when the host has no TLS. */
    forceSslRedirect: boolean;
  };
  backendProtocol: BackendProtocol;
  proxy: {
    /** nginx size syntax, e.g. `1m`, `8k`, `0` (unlimited). */
    bodySize: string;
    /** Seconds. */
    connectTimeout: number;
    readTimeout: number;
    sendTimeout: number;
    buffering: 'on' | 'off';
  };
  /** Client address filters (CIDRs or addresses); empty means no filter. 403 when refused. */
  ipAccess: {
    allow: string[];
    deny: string[];
  };
  /**
   * `configuration-snippet`: nginx directives written into the location as
   * they are; only when the ConfigMap admits snippets (allow-snippet-annotations, risk level Critical).
   */
  configurationSnippet?: string;
  /** `auth-tls-*`: client certificates; the host's choice among its Ingresses is Server.clientCertificates. */
  clientCertificates?: ClientCertificateAnnotations;
  /** `limit-*`: undefined when nothing limits the location. */
  limits?: RateLimits;
  /** The ModSecurity annotations; unset when the Ingress has none of them (the ConfigMap's enable-modsecurity still applies). */
  modSecurity?: ModSecurityAnnotations;
  /** `proxy-ssl-*`: TLS to HTTPS and GRPCS backends; set only with proxy-ssl-secret (backendTls.ts). */
  backendTls?: BackendTls;
  /** `auth-url` and its group, or the ConfigMap's `global-auth-url` (externalAuthAnnotations.ts); unset: no external auth. */
  externalAuth?: ExternalAuth;
  /** `auth-type` basic or digest (with `auth-secret`, `auth-secret-type`, `auth-realm`); undefined without `auth-type`. */
  basicAuth?: BasicAuth;
  /** `satisfy`: `any` lets the address filters or the authentication suffice; `all` (nginx's default) needs both. */
  satisfy?: 'any' | 'all';
  /** `custom-http-errors`, `disable-proxy-intercept-errors`, `default-backend` (errorPageAnnotations.ts); unset: neither codes nor default-backend. */
  errorPages?: ErrorPages;
  /** `custom-headers`: response headers from a ConfigMap (customHeadersAnnotations.ts); unset: none. */
  customHeaders?: CustomHeaders;
  /** `connection-proxy-header`, `upstream-vhost`, `x-forwarded-prefix` (upstreamHeaderAnnotations.ts); unset: Portico's own. */
  upstreamHeaders?: UpstreamHeaders;
  /** `proxy-cookie-*`, `proxy-redirect-*` (responseRewriteAnnotations.ts); unset: nginx's defaults. */
  responseRewrites?: ResponseRewrites;
  /** `http2-push-preload: "true"`: Link preload headers become HTTP/2 pushes (http2PushPreloadAnnotations.ts). */
  http2PushPreload?: true;
  /** `server-snippet`, admitted as configuration-snippet; the host's choice among its Ingresses is Server.serverSnippet. */
  serverSnippet?: string;
  /** `fastcgi-index` and `fastcgi-params-configmap`, for backend-protocol FCGI only (fastCgiAnnotations.ts). */
  fastCgi?: FastCgi;
  /** `proxy-buffer-size` and its group (proxyTuningAnnotations.ts); unset: the ConfigMap's, from the http block. */
  proxyTuning?: ProxyTuning;
  /** `proxy-next-upstream*` (nextUpstreamAnnotations.ts); unset: the ConfigMap's. */
  nextUpstream?: NextUpstream;
  /** `ssl-ciphers`, `ssl-prefer-server-ciphers` (tlsCipherAnnotations.ts); the host's choice is Server.tlsCiphers. */
  tlsCiphers?: TlsCipherAnnotations;
  /** `enable-access-log`, `enable-rewrite-log` (logAnnotations.ts); unset: nginx's defaults. */
  logs?: LogAnnotations;
  /** `enable-cors` and the `cors-*` annotations (corsAnnotations.ts); undefined without `enable-cors: "true"`. */
  cors?: Cors;
  /** `app-root`, `permanent-redirect`, `temporal-redirect` and the redirect options (redirectAnnotations.ts); unset: none. */
  redirects?: Redirects;
  /** `server-alias`: more names for the Ingress's hosts (the Server's aliases, hostAliases.ts). */
  serverAlias?: string[];
  /** `from-to-www-redirect: "true"`: the host's www twin redirects to it (the Server's wwwRedirect, hostAliases.ts). */
  fromToWwwRedirect?: true;
  /** `mirror-target` and its group: a copy of every request goes there (mirrorAnnotations.ts). */
  mirror?: Mirror;
}

/** Basic or digest authentication against the users of a Secret (ingress-nginx's BasicDigestAuth). */
export interface BasicAuth {
  type: 'basic' | 'digest';
  /** `auth-realm`, default `""`. */
  realm: string;
  /** `auth-secret`: `name` or `namespace/name`; undefined when not set (the location refuses requests). */
  secret: { namespace: string | undefined; name: string } | undefined;
  /** `auth-secret-type`: key `auth` holds an htpasswd (or htdigest) file, or one key per user. */
  secretType: 'auth-file' | 'auth-map';
  /**
   * The Secret's users, looked up by the model (basicAuthSecret.ts); undefined
   * when it cannot be used (missing, another namespace, no `auth` key): the
   * location then answers 503, never serves open.
   */
  users: PasswordTable | undefined;
}

/** Users and their password hashes: live state (pushed to Lua's shared memory), never written to a file or nginx.conf. */
export interface PasswordTable {
  /** `namespace/name` of the Secret. */
  secret: string;
  /** Changes with the content. */
  id: string;
  /** basic: user → htpasswd hash; digest: `user:realm` → HA1 (hex MD5). First entry of a user wins, as in nginx. */
  entries: Record<string, string>;
}

/** An auth-url (or global-auth-url) parsed and re-serialised (externalAuthUrl.ts). */
export interface AuthUrl {
  scheme: 'http' | 'https';
  /** Lower-case DNS name, IPv4 address, or IPv6 address in brackets. */
  host: string;
  port: number;
  /** Path and query (`/check?x=$host`), `''` for none; `$name` references are nginx variables. */
  path: string;
}

/**
 * External authentication (ingress-nginx's authreq): each request first goes
 * to `url` as a subrequest without body; 2xx lets it through, 401 and 403 go
 * to the client (401 to the sign-in URL when there is one).
 */
export interface ExternalAuth {
  url: AuthUrl;
  /** `auth-method`; undefined: the client's method. */
  method: string | undefined;
  /** `auth-signin`: where a 401 redirects (302); may use nginx variables. */
  signin: string | undefined;
  /** `auth-signin-redirect-param`: the query parameter of the sign-in URL carrying the original URL. */
  signinRedirectParam: string;
  /** `auth-response-headers`: copied from the auth response to the upstream request. */
  responseHeaders: string[];
  /** `auth-request-redirect`: the X-Auth-Request-Redirect header; undefined: the request URI. */
  requestRedirect: string | undefined;
  /** `auth-cache-key`: set to cache auth responses under this key (may use nginx variables). */
  cacheKey: string | undefined;
  /** `auth-cache-duration`: how long each status is cached. */
  cacheDurations: AuthCacheDuration[];
  /** `auth-always-set-cookie`: the auth response's Set-Cookie on every response, not only on success. */
  alwaysSetCookie: boolean;
  /** `auth-proxy-set-headers`: the ConfigMap (`namespace/name` or name) of headers sent to the auth service. */
  proxySetHeadersFrom: { namespace: string | undefined; name: string } | undefined;
  /** That ConfigMap's headers, sorted by name (referencedObjects.ts fills them in). */
  proxySetHeaders: Array<[name: string, value: string]>;
  /** Why every request is refused (503) instead: the ConfigMap is missing, invalid or not allowed. */
  denied: string | undefined;
  /** `auth-snippet` (or `global-auth-snippet`): one line of nginx configuration in the auth location, when snippets are admitted. */
  snippet: string | undefined;
  /** From the ConfigMap's global-auth-* keys, not the Ingress's annotations. */
  global: boolean;
  /** `auth-keepalive*`: connections to the auth service kept open, through a Lua subrequest; undefined: one connection per auth request. */
  keepalive: AuthKeepalive | undefined;
}

/** An auth service's idle connections kept per worker (nginx's upstream `keepalive`). */
export interface AuthKeepalive {
  /** `auth-keepalive`: at most this many idle connections per worker. */
  connections: number;
  /** `auth-keepalive-requests`: requests one connection serves before it is closed. */
  requests: number;
  /** `auth-keepalive-timeout`: seconds an idle connection stays open. */
  timeoutSeconds: number;
  /** `auth-keepalive-share-vars`: the auth subrequest shares the request's nginx variables. */
  shareVars: boolean;
}

/** `proxy_cache_valid`: these statuses (all of 200, 301 and 302 when empty) are cached for `time`. */
export interface AuthCacheDuration {
  codes: number[];
  /** An nginx time, such as `5m`. */
  time: string;
}

/** How nginx speaks TLS to the backend (`proxy-ssl-*`). */
export interface BackendTls {
  /** `proxy-ssl-secret` as written: its namespace undefined for the Ingress's own. */
  secret: { namespace: string | undefined; name: string };
  /**
   * The SecretFiles made of the Secret (model/backendTlsSecret.ts); undefined until the
   * model looked it up, and when it cannot be used (missing, another namespace, invalid): then the location answers 503.
   */
  files: BackendTlsFiles | undefined;
  /** `proxy-ssl-verify`: check the backend's certificate against the Secret's ca.crt. */
  verify: boolean;
  verifyDepth: number;
  /** `proxy-ssl-ciphers`: an OpenSSL cipher list. */
  ciphers: string;
  /** `proxy-ssl-protocols`: sorted, e.g. `TLSv1.2`, `TLSv1.3`. */
  protocols: string[];
  /** `proxy-ssl-name`: the name checked and sent as SNI: a host name, or an expression of the variables backendTls.ts allows. */
  name: string | undefined;
  /** `proxy-ssl-server-name`: send SNI. */
  serverName: boolean;
}

/** SecretFile ids. */
export interface BackendTlsFiles {
  /** ca.crt: the certificates the backend's is verified against. */
  trustedCertificate: string | undefined;
  /** tls.crt and tls.key in one file: the client certificate presented to the backend. */
  clientCertificate: string | undefined;
}

/** ingress-nginx's modsecurity group. */
export interface ModSecurityAnnotations {
  /** `enable-modsecurity`; undefined when not set, so that only an explicit "false" turns the ConfigMap's ModSecurity off. */
  enable: boolean | undefined;
  /** `enable-owasp-core-rules`: the OWASP Core Rule Set, where ModSecurity is on. */
  owaspCoreRules: boolean;
  /** `modsecurity-transaction-id`: an nginx variable expression such as `$request_id`. */
  transactionId?: string;
  /** `modsecurity-snippet`: one line of ModSecurity rules (a snippet: only when the ConfigMap admits snippets). */
  snippet?: string;
}

/**
 * Rate and connection limits (rateLimitAnnotations.ts). The connection and
 * request limits count per client key (the ConfigMap's limit-conn-zone-variable)
 * in zones of the Ingress, shared by all its locations.
 */
export interface RateLimits {
  /** `limit-connections`: concurrent connections per client; 0 = no limit. */
  connections: number;
  /** `limit-rps` and `limit-rpm`: requests per client and second or minute; 0 = no limit. */
  requestsPerSecond: number;
  requestsPerMinute: number;
  /** `limit-burst-multiplier`: a client may go rate × this over at once (served without delay), then is refused. */
  burstMultiplier: number;
  /** `limit-allowlist`: client addresses and CIDRs that no limit counts. */
  allowlist: string[];
  /** `limit-rate`: kilobytes per second sent to the client per request; 0 = no limit. */
  rateKilobytes: number;
  /** `limit-rate-after`: kilobytes sent before limit-rate applies. */
  rateAfterKilobytes: number;
}

/** nginx's ssl_verify_client modes, as ingress-nginx's auth-tls-verify-client. */
export type ClientVerification = 'on' | 'off' | 'optional' | 'optional_no_ca';

/** One Ingress's `auth-tls-*` annotations. */
export interface ClientCertificateAnnotations {
  /** `auth-tls-secret`: `ca.crt` (the CAs a client certificate must chain to) and optionally `ca.crl`. */
  secret: ObjectReference;
  verifyClient: ClientVerification;
  /** `auth-tls-verify-depth`. */
  verifyDepth: number;
  /** `auth-tls-error-page`: an http(s) URL or a path answering requests that failed verification instead of 400. */
  errorPage: string | undefined;
  /** `auth-tls-pass-certificate-to-upstream`: the URL-encoded PEM in the `ssl-client-cert` header. */
  passCertificateToUpstream: boolean;
  /** `auth-tls-match-cn`: a regex (`CN=...`) the subject DN must match, else 403. */
  matchCn: string | undefined;
  /** Set by the model from the Secret (clientCertificateSecret.ts). */
  material?: ClientCertificateMaterial;
}

/** The SecretFile ids nginx verifies with, or why the Secret cannot be used (the host then refuses every request). */
export type ClientCertificateMaterial = { caFile: string; crlFile: string | undefined } | { refused: string };

/** How a host verifies client certificates: its oldest Ingress's auth-tls-* with usable material, or refusal. */
export type HostClientCertificates = { ingress: IngressRef } & (
  | { verify: ClientCertificateAnnotations; caFile: string; crlFile: string | undefined }
  /** An Ingress of the host names an unusable Secret: every request to the host gets 503, never an unverified answer. */
  | { refused: string }
);

/**
 * An Ingress's annotations, split by where they take effect. Only `location`
 * reaches nginx.conf; the others are live state (pushed to the Lua balancer
 * without a reload), so they live on Backends, never on Locations.
 */
export interface IngressAnnotations {
  location: LocationAnnotations;
  /** For every backend the Ingress routes to, unless an older Ingress routes to it too. */
  balancing: Balancing;
  /** Set when the Ingress is a canary (`canary: "true"`): it then has no locations of its own. */
  canary: CanaryPolicy | undefined;
}

/** `load-balance`: the algorithms Portico's Lua balancer implements. */
export type LoadBalanceAlgorithm = 'round_robin' | 'ewma';

/**
 * How a backend's balancer picks an endpoint. The Lua balancer applies the
 * first that is set, as ingress-nginx: affinity, then hashBy, then algorithm.
 */
export interface Balancing {
  /** `load-balance`, else the ConfigMap's. */
  algorithm: LoadBalanceAlgorithm;
  hashBy: ConsistentHash | undefined;
  affinity: SessionAffinity | undefined;
  /** `service-upstream`: the Service's ClusterIP is the one endpoint (backendTable.ts); not live state. */
  serviceUpstream?: true;
}

/** `upstream-hash-by`: consistent hashing of a per-request key. */
export interface ConsistentHash {
  /** An nginx variable expression, such as `$request_uri` or `${cookie_user}-x`. */
  key: string;
  /** `upstream-hash-by-subset`: hash to a group of endpoints, then pick one of them at random. */
  subset: boolean;
  /** `upstream-hash-by-subset-size`: endpoints per group. */
  subsetSize: number;
}

/** `affinity: cookie`: a cookie pins a client to an endpoint. */
export interface SessionAffinity {
  /** `affinity-mode`: balanced moves some sessions when endpoints change; persistent never does. */
  mode: 'balanced' | 'persistent';
  cookie: SessionCookie;
  /**
   * Set by the model on a backend (affinityScope.ts): host → the location paths that set the cookie, those of
   * Ingresses with affinity (ingress-nginx's per-path affinity); other locations balance by a cookie they never set.
   */
  locations?: Record<string, string[]>;
}

/** The `session-cookie-*` annotations. */
export interface SessionCookie {
  name: string;
  /** undefined: the path of the location that set it, as ingress-nginx. */
  path: string | undefined;
  domain: string | undefined;
  /** Seconds. */
  maxAge: number | undefined;
  /** Seconds from the time the cookie is set (for clients without Max-Age). */
  expires: number | undefined;
  /** Secure even on plain-HTTP requests. */
  secure: boolean;
  sameSite: 'None' | 'Lax' | 'Strict' | undefined;
  /** Omit `SameSite=None` for clients known to mishandle it. */
  conditionalSameSiteNone: boolean;
  /** A new endpoint (and cookie) after the pinned one fails. */
  changeOnFailure: boolean;
  /** `session-cookie-partitioned`: the `Partitioned` attribute (CHIPS). */
  partitioned: boolean;
}

/**
 * Which requests a canary takes from its primary backend, checked in this
 * order: the header, the cookie, then the weight.
 */
export interface CanaryPolicy {
  /** `canary-weight` out of `canary-weight-total`: the share of the remaining requests. */
  weight: number;
  weightTotal: number;
  /** `canary-by-header`: `always` or `never` in this request header decides, unless a value or pattern is set. */
  header: string | undefined;
  /** `canary-by-header-value`: the header value that sends a request to the canary. */
  headerValue: string | undefined;
  /** `canary-by-header-pattern`: a regular expression header values are matched against instead. */
  headerPattern: string | undefined;
  /** `canary-by-cookie`: `always` or `never` in this cookie decides. */
  cookie: string | undefined;
  /**
   * `affinity-canary-behavior`: `sticky` (ingress-nginx's default) gives the
   * canary backend the primary's cookie affinity, so a client the canary took
   * stays on it; `legacy` keeps the canary backend's own balancing.
   */
  affinityBehavior: 'sticky' | 'legacy';
}

/** A primary backend's canary: another backend and the policy that sends requests to it. */
export interface Canary extends CanaryPolicy {
  backend: string;
}

export interface IngressRef {
  namespace: string;
  name: string;
}

export interface Location {
  path: string;
  match: PathMatch;
  /** Name of a Backend, or undefined for Portico's own 404. */
  backend: string | undefined;
  /** The Ingress that defined it; undefined for generated defaults. */
  ingress: IngressRef | undefined;
  annotations: LocationAnnotations;
}

export interface Server {
  /** `example.com`, `*.example.com` (exactly one label), or `_` for the catch-all. */
  hostname: string;
  /** Id of the Certificate for this host, or undefined for the default certificate. */
  certificate: string | undefined;
  /** The host is listed in some Ingress's spec.tls (so plain HTTP redirects to HTTPS by default). */
  tls: boolean;
  /** Locations in the order nginx must see them (regex locations are first-match). */
  locations: Location[];
  /** `auth-tls-*` for the whole host (hostClientCertificates.ts); absent: no client certificates asked for. */
  clientCertificates?: HostClientCertificates;
  /** `server-snippet` of the host's oldest Ingress that sets one (hostServerSnippet.ts); absent: none. */
  serverSnippet?: HostServerSnippet;
  /** `ssl-ciphers`, `ssl-prefer-server-ciphers` for the whole host (hostTlsCiphers.ts); absent: the ConfigMap's. */
  tlsCiphers?: HostTlsCiphers;
  /** `server-alias`: more names answered as this host (hostAliases.ts); absent: none. */
  aliases?: HostAlias[];
  /** `from-to-www-redirect`: the name whose server redirects to this host (hostAliases.ts); absent: none. */
  wwwRedirect?: HostAlias;
}

export interface Endpoint {
  address: string;
  port: number;
}

export interface Backend {
  /** `<namespace>/<service>:<port>` (backendName in backends.ts; ingress-nginx's `<namespace>-<service>-<port>` is ambiguous). */
  name: string;
  service: { namespace: string; name: string; port: string | number };
  /** Ready endpoints, sorted; empty means 503. */
  endpoints: Endpoint[];
  /** From the oldest Ingress routing to the backend; live state, except that ewma adds a log hook to its locations. */
  balancing: Balancing;
  /** Live state, not rendered. */
  canary: Canary | undefined;
}

export interface Certificate {
  /** Stable for the same content: a new secret version gets a new id. */
  id: string;
  /** `namespace/name` of the Secret. */
  secret: string;
  certificatePem: string;
  keyPem: string;
  /** Names the certificate covers (SANs, else CN). */
  hosts: string[];
  /** ISO date. */
  notAfter: string;
}

/**
 * Secret material nginx can only read from a file (a client-certificate CA
 * bundle, a CRL, a backend client certificate and key): written 0600 into a
 * folder only the nginx master reads (at load, before it drops privileges),
 * named by `id`, removed once no loaded nginx.conf names it (secretFiles.ts).
 */
export interface SecretFile {
  /** A file name, stable for the same content: `<namespace>-<name>-<role>-<digest>.pem`. */
  id: string;
  /** `namespace/name` of the Secret it comes from. */
  secret: string;
  contents: string;
}

/** Why an Ingress (or one version of it) is not served as written. */
export interface IngressProblem {
  ingress: IngressRef;
  /** `warning`: part of the Ingress is not served as written (a Warning Event); `info` is advice (a Normal one). */
  severity: 'warning' | 'info';
  reason: string;
  message: string;
}

export interface Configuration {
  /** The catch-all `_` first, then by hostname. */
  servers: Server[];
  /** By name. */
  backends: Backend[];
  /** By id. */
  certificates: Certificate[];
  /** By id: the files the rendered nginx.conf names (SecretFile). */
  secretFiles: SecretFile[];
  /** The certificate of the catch-all server and of TLS hosts without their own; undefined = the fake one. */
  defaultCertificate: string | undefined;
  /** Backend for unmatched requests (`--default-backend-service` or a catch-all Ingress); undefined = 404. */
  defaultBackend: string | undefined;
  /** The global ConfigMap's settings. */
  settings: GlobalSettings;
}
