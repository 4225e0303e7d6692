// The desired configuration: what the model computes from a store snapshot and
// what the data plane renders. Plain data (JSON-serialisable, sorted), so two
// configurations compare exactly and cheaply, and nothing here knows nginx
// syntax or Kubernetes clients.
import type { GlobalSettings } from './settings/globalSettings.js';

/** How a location matches request paths. */
export type PathMatch =
  /** The whole path, case-sensitive. */
  | 'exact'
  /** Element-wise prefix (`/foo` matches `/foo` and `/foo/...`, not `/foobar`). */
  | 'prefix'
  /** ingress-nginx regex mode: case-insensitive regex anchored at the start. */
  | 'regex';

export type BackendProtocol = 'HTTP' | 'HTTPS' | 'GRPC' | 'GRPCS';

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
  };
  /** Client address filters (CIDRs or addresses); empty means no filter. 403 when refused. */
  ipAccess: {
    allow: string[];
    deny: string[];
  };
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
}

export interface Endpoint {
  address: string;
  port: number;
}

export interface Backend {
  /** `<namespace>-<service>-<port>` as in ingress-nginx. */
  name: string;
  service: { namespace: string; name: string; port: string | number };
  /** Ready endpoints, sorted; empty means 503. */
  endpoints: Endpoint[];
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

/** Why an Ingress (or one version of it) is not served as written. */
export interface IngressProblem {
  ingress: IngressRef;
  /** `warning` keeps serving the last good version; `info` is advice. */
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
  /** The certificate of the catch-all server and of TLS hosts without their own; undefined = the fake one. */
  defaultCertificate: string | undefined;
  /** Backend for unmatched requests (`--default-backend-service` or a catch-all Ingress); undefined = 404. */
  defaultBackend: string | undefined;
  /** The global ConfigMap's settings. */
  settings: GlobalSettings;
}
