// Where a backend's affinity cookie is set. ingress-nginx keeps one affinity
// per backend (its upstream) but sets the cookie only on the paths of the
// Ingresses that ask for affinity (CookieSessionAffinity.Locations: host →
// paths, matched against $host and $location_path by its sticky.lua): another
// Ingress's path to the same Service is balanced by the cookie a client
// already has, and never gets one. The Lua balancer reads the same scope here
// (lua/portico/balancer/sticky.lua).
import type { Backend, IngressRef, Server, SessionAffinity } from './types.js';

export const ingressKey = (ingress: IngressRef): string => `${ingress.namespace}/${ingress.name}`;

type Scope = Map<string, Set<string>>;

function addPath(scopes: Map<string, Scope>, backend: string, host: string, path: string): void {
  let scope = scopes.get(backend);
  if (scope === undefined) scopes.set(backend, (scope = new Map<string, Set<string>>()));
  let paths = scope.get(host);
  if (paths === undefined) scope.set(host, (paths = new Set<string>()));
  paths.add(path);
}

/** The union, sorted, so equal scopes serialise equally. */
function asRecord(...scopes: Array<Scope | undefined>): Record<string, string[]> {
  const union: Scope = new Map();
  for (const [host, paths] of scopes.flatMap((scope) => [...(scope ?? [])]))
    union.set(host, new Set([...(union.get(host) ?? []), ...paths]));
  const entries = [...union].map(([host, paths]): [string, string[]] => [host, [...paths].sort()]);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * `withAffinity`: the Ingresses (ingressKey) whose annotations ask for affinity. A canary that takes its
 * primary's affinity (affinity-canary-behavior sticky) takes its scope too; with its own affinity (legacy), it
 * sets its cookie on every path its primary serves, which is where its Ingress's paths were merged.
 */
export function scopeAffinity(backends: readonly Backend[], servers: readonly Server[], withAffinity: ReadonlySet<string>): Backend[] {
  const primaryOf = new Map(backends.flatMap((backend) => (backend.canary ? [[backend.canary.backend, backend] as const] : [])));
  // Only the scopes an affinity reads are collected: at 10,000 Ingresses, most backends have none.
  const read = new Set<string>();
  for (const backend of backends) {
    if (backend.balancing.affinity === undefined) continue;
    read.add(backend.name);
    const primary = primaryOf.get(backend.name);
    if (primary !== undefined) read.add(primary.name);
  }
  const asked = new Map<string, Scope>();
  const served = new Map<string, Scope>();
  for (const server of read.size === 0 ? [] : servers) {
    for (const { backend, ingress, path } of server.locations) {
      if (backend === undefined || !read.has(backend)) continue;
      addPath(served, backend, server.hostname, path);
      if (ingress !== undefined && withAffinity.has(ingressKey(ingress))) addPath(asked, backend, server.hostname, path);
    }
  }
  return backends.map((backend) => {
    const { affinity } = backend.balancing;
    if (affinity === undefined) return backend;
    const primary = primaryOf.get(backend.name);
    const own = asked.get(backend.name);
    const asCanary = primary?.canary?.affinityBehavior === 'sticky' ? asked : served;
    const locations = asRecord(own, primary === undefined ? undefined : asCanary.get(primary.name));
    const scoped: SessionAffinity = { ...affinity, locations };
    return { ...backend, balancing: { ...backend.balancing, affinity: scoped } };
  });
}
