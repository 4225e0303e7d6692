// What nginx learns without a reload: the endpoints and balancing of every
// backend, the certificates by host, and the routes of new hosts until their
// reload (pendingRoutes.ts). Serialised once per configuration;
// the pusher sends a part only when its text changed. The backends document
// is the contract of lua/portico/backends.lua: optional settings are null
// (affinity, canary and their fields) or absent (hashBy and its subset
// fields, which mean nothing without it).
import type { Backend, Canary, Configuration, Endpoint, LoadBalanceAlgorithm, SessionAffinity } from '../../model/types.js';
import { ingressNginxUpstreamName } from '../../model/backends.js';
import { otherServerNames } from '../../model/hostAliases.js';
import { authenticationDocument } from './basicAuthState.js';
import { pendingRoutes } from './pendingRoutes.js';

export interface LiveBackend {
  name: string;
  /** ingress-nginx's name of the backend, which salts the affinity cookie as there (sessions survive a migration). */
  upstreamName: string;
  endpoints: Endpoint[];
  loadBalance: LoadBalanceAlgorithm;
  hashBy?: string;
  hashBySubset?: boolean;
  hashBySubsetSize?: number;
  affinity: LiveAffinity | null;
  canary: LiveCanary | null;
}

export interface LiveAffinity {
  mode: SessionAffinity['mode'];
  /** Host → the location paths that set the cookie (affinityScope.ts). */
  locations: Record<string, string[]>;
  cookie: {
    name: string;
    path: string | null;
    domain: string | null;
    maxAge: number | null;
    expires: number | null;
    /** true: always; null: over HTTPS only. */
    secure: true | null;
    sameSite: 'None' | 'Lax' | 'Strict' | null;
    conditionalSameSiteNone: boolean;
    changeOnFailure: boolean;
    partitioned: boolean;
  };
}

export interface LiveCanary {
  backend: string;
  weight: number;
  weightTotal: number;
  header: string | null;
  headerValue: string | null;
  headerPattern: string | null;
  cookie: string | null;
}

export interface LiveState {
  /** JSON for POST /configuration/backends. */
  backends: string;
  /** JSON for POST /configuration/certificates. */
  certificates: string;
  /** JSON for POST /configuration/routes. */
  routes: string;
  /** JSON for POST /configuration/authentication (basicAuthState.ts). */
  authentication: string;
}

/** `servedHosts`: the hosts the running nginx.conf has server blocks for (none before the first start). */
export function liveStateOf(configuration: Configuration, servedHosts: ReadonlySet<string>): LiveState {
  const servers: Record<string, string> = {};
  for (const server of configuration.servers) {
    if (server.certificate !== undefined) servers[server.hostname] = server.certificate;
    for (const alias of otherServerNames(server)) if (alias.certificate !== undefined) servers[alias.hostname] = alias.certificate;
  }
  const certificates: Record<string, string> = {};
  for (const certificate of configuration.certificates) {
    certificates[certificate.id] = `${certificate.certificatePem.trimEnd()}\n${certificate.keyPem.trimEnd()}\n`;
  }
  return {
    backends: JSON.stringify({ backends: configuration.backends.map(liveBackend) }),
    certificates: JSON.stringify({ certificates, servers, default: configuration.defaultCertificate ?? null }),
    routes: JSON.stringify(pendingRoutes(configuration, servedHosts)),
    authentication: JSON.stringify(authenticationDocument(configuration)),
  };
}

function liveBackend({ name, service, endpoints, balancing, canary }: Backend): LiveBackend {
  const { hashBy, affinity } = balancing;
  return {
    name,
    upstreamName: ingressNginxUpstreamName(service),
    endpoints,
    loadBalance: balancing.algorithm,
    ...(hashBy && { hashBy: hashBy.key, hashBySubset: hashBy.subset, hashBySubsetSize: hashBy.subsetSize }),
    affinity: affinity ? liveAffinity(affinity) : null,
    canary: canary ? liveCanary(canary) : null,
  };
}

function liveAffinity({ mode, cookie, locations }: SessionAffinity): LiveAffinity {
  return {
    mode,
    locations: locations ?? {},
    cookie: {
      name: cookie.name,
      path: cookie.path ?? null,
      domain: cookie.domain ?? null,
      maxAge: cookie.maxAge ?? null,
      expires: cookie.expires ?? null,
      // null: Secure over HTTPS. As ingress-nginx (its omitempty false), "false" does not take Secure from an HTTPS cookie.
      secure: cookie.secure ? true : null,
      sameSite: cookie.sameSite ?? null,
      conditionalSameSiteNone: cookie.conditionalSameSiteNone,
      changeOnFailure: cookie.changeOnFailure,
      partitioned: cookie.partitioned,
    },
  };
}

function liveCanary(canary: Canary): LiveCanary {
  return {
    backend: canary.backend,
    weight: canary.weight,
    weightTotal: canary.weightTotal,
    header: canary.header ?? null,
    headerValue: canary.headerValue ?? null,
    headerPattern: canary.headerPattern ?? null,
    cookie: canary.cookie ?? null,
  };
}
