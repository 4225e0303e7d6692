// The access-control parts of a location (issue 14): authentication, backend
// TLS, ModSecurity and limits, as the model resolves them. Re-exported by
// types.ts, which holds the rest of the desired configuration.

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
