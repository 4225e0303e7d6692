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
import type { GlobalHeaders } from './globalHeaders.js';
import type { LogAnnotations } from './annotations/logAnnotations.js';
import type { HostTlsCiphers, TlsCipherAnnotations } from './annotations/tlsCipherAnnotations.js';
import type { Redirects } from './annotations/redirectAnnotations.js';
import type { HostAlias } from './annotations/serverAliasAnnotations.js';
import type { Mirror } from './annotations/mirrorAnnotations.js';
import type { ObjectReference } from './objectReference.js';
import type { NextUpstream } from './annotations/nextUpstreamAnnotations.js';
import type { ProxyTuning } from './annotations/proxyTuningAnnotations.js';
import type { GlobalSettings } from './settings/globalSettings.js';
import type { StreamConfiguration } from './stream/streamTypes.js';
import type { Cors } from './annotations/corsAnnotations.js';
import type { BackendTls, BasicAuth, ExternalAuth, ModSecurityAnnotations, RateLimits } from './accessControlTypes.js';
export type {
  BasicAuth,
  PasswordTable,
  AuthUrl,
  ExternalAuth,
  AuthKeepalive,
  AuthCacheDuration,
  BackendTls,
  BackendTlsFiles,
  ModSecurityAnnotations,
  RateLimits,
} from './accessControlTypes.js';

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
  /** `ssl-passthrough: "true"`: the host's TLS goes by SNI to its `/` backend (stream/passthroughHosts.ts), with --enable-ssl-passthrough. */
  sslPassthrough?: true;
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
  /** `stream-snippet` (snippetAnnotations.ts): written into the stream block (model/stream/streamSnippets.ts). */
  streamSnippet?: string;
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
  /** `namespace/name` of the Secret it comes from (`ConfigMap key <key>` for a ConfigMap value). */
  secret: string;
  contents: string;
  /** `base64`: `contents` is the base64 of binary data (ssl-session-ticket-key, model/tlsSettingsFiles.ts); else text. */
  encoding?: 'base64';
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
  /** ssl-dh-param and ssl-session-ticket-key as SecretFile ids (model/tlsSettingsFiles.ts). */
  tlsFiles?: import('./tlsSettingsFiles.js').TlsSettingsFiles;
  /** The certificate of the catch-all server and of TLS hosts without their own; undefined = the fake one. */
  defaultCertificate: string | undefined;
  /** Backend for unmatched requests (`--default-backend-service` or a catch-all Ingress); undefined = 404. */
  defaultBackend: string | undefined;
  /** The global ConfigMap's settings. */
  settings: GlobalSettings;
  /** add-headers and proxy-set-headers, read from the ConfigMaps they name (undefined: none). */
  globalHeaders?: GlobalHeaders;
  /** TCP/UDP services and SSL passthrough: nginx's stream block (stream/streamTypes.ts); undefined: none of them. */
  stream?: StreamConfiguration;
}
