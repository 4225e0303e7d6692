// A server's locations, in the form and order nginx needs, with
// ingress-nginx's host-wide regex mode and oldest-wins conflict rule.
import { sameIngress } from './ingressRules.js';
import { pathLengthProblem, regexPathProblem } from './regexPaths.js';
import type { IngressProblem, IngressRef, Location, LocationAnnotations } from './types.js';

/** A path as collected from the Ingresses, before the host's mode is known. */
export interface DraftLocation {
  path: string;
  type: 'Exact' | 'Prefix' | 'ImplementationSpecific';
  backend: string | undefined;
  ingress: IngressRef | undefined;
  annotations: LocationAnnotations;
  /** Portico's default `/` for the host, replaced by any real rule for it. */
  generated: boolean;
}

/**
 * ingress-nginx switches EVERY location of a host to case-insensitive regex
 * matching as soon as one Ingress of that host asks for use-regex or a
 * rewrite-target (a documented compatibility behaviour).
 */
export function isRegexHost(drafts: readonly Pick<DraftLocation, 'path' | 'annotations' | 'generated'>[]): boolean {
  return drafts.some((draft) => !draft.generated && asksForRegex(draft.path, draft.annotations.rewrite));
}

/** Whether a rule path with these annotations turns its host to regex mode. */
export function asksForRegex(path: string, rewrite: Pick<LocationAnnotations['rewrite'], 'useRegex' | 'target'>): boolean {
  return rewrite.useRegex || (rewrite.target !== undefined && rewrite.target !== path);
}

/** Prefix paths compare element-wise, so a trailing slash means nothing (`/foo/` = `/foo`). */
export function normalizePrefix(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

type Placement = Pick<Location, 'path' | 'match'>;

/** Where a draft lands on its host once the host's mode is known. */
function placement(draft: Pick<DraftLocation, 'path' | 'type'>, regex: boolean): Placement {
  if (regex) return { path: draft.path, match: 'regex' };
  return draft.type === 'Exact' ? { path: draft.path, match: 'exact' } : { path: normalizePrefix(draft.path), match: 'prefix' };
}

/** Drafts with the same key compete for one location. */
function placementKey({ path, match }: Placement): string {
  return `${match} ${path}`;
}

/** The key of the location a rule path takes on a host (regex or not): rule paths with one key compete for it. */
export function locationKey(rulePath: Pick<DraftLocation, 'path' | 'type'>, regex: boolean): string {
  return placementKey(placement(rulePath, regex));
}

/**
 * The draft whose location a rule path would share on the host: the oldest
 * draft from a rule at the same placement, which finalizeLocations keeps.
 */
export function ruleDraftAt(drafts: readonly DraftLocation[], rulePath: Pick<DraftLocation, 'path' | 'type'>): DraftLocation | undefined {
  const regex = isRegexHost(drafts);
  const wanted = locationKey(rulePath, regex);
  return drafts.find((draft) => !draft.generated && locationKey(draft, regex) === wanted);
}

/**
 * Drafts come oldest Ingress first; the first location for a path (and match)
 * wins and later ones are reported. Regex locations are first-match in nginx,
 * so they are ordered longest path first (ties: reverse lexical), as
 * ingress-nginx does; plain ones are sorted only for determinism.
 */
export function finalizeLocations(hostname: string, drafts: readonly DraftLocation[], problems: IngressProblem[]): Location[] {
  const regex = isRegexHost(drafts);
  const chosen = new Map<string, Location>();
  const generated: Location[] = [];
  for (const draft of drafts) {
    // Written out, not spread (`{ ...placement(draft, regex), backend, ... }`): V8 built the spread objects about
    // ten times slower (0.4-1.4 s of the model at 10,000 Ingresses, by CPU profile), and larger.
    const { path, match } = placement(draft, regex);
    const location: Location = {
      path,
      match,
      backend: draft.backend,
      ingress: draft.ingress,
      annotations: draft.annotations,
    };
    if (draft.generated) {
      generated.push(location);
      continue;
    }
    const unservable = unservableProblem(draft, regex);
    if (unservable !== undefined) {
      if (draft.ingress) {
        const message = `path ${JSON.stringify(draft.path.slice(0, 64))} on host ${hostname} ${unservable}; it is not served`;
        problems.push({ ingress: draft.ingress, severity: 'warning', reason: UNSERVABLE_PATH, message });
      }
      continue;
    }
    const key = placementKey(location);
    const owner = chosen.get(key);
    if (owner) {
      if (draft.ingress && !sameIngress(owner.ingress, draft.ingress)) {
        problems.push({
          ingress: draft.ingress,
          severity: 'warning',
          reason: 'PathConflict',
          message: `path ${location.path} on host ${hostname} is already served by the older Ingress ${owner.ingress?.namespace}/${owner.ingress?.name}`,
        });
      }
      continue;
    }
    chosen.set(key, location);
  }
  for (const location of generated) {
    const key = placementKey(location);
    if (!chosen.has(key)) chosen.set(key, location);
  }
  const locations = [...chosen.values()];
  if (regex) return locations.sort(compareRegex);
  return [...locations, ...slashlessExactTwins(locations)].sort(comparePlain);
}

/** The reason of the problem reported for a rule path that is not served because nginx would refuse it. */
export const UNSERVABLE_PATH = 'InvalidPath';

/**
 * A rule path nginx would refuse in this host's mode. The acceptance checks
 * refuse such paths of an Ingress that asks for regex mode itself; this
 * catches another Ingress's path turned into a regex by it, which costs that
 * location only, never the reload.
 */
function unservableProblem(draft: DraftLocation, regex: boolean): string | undefined {
  return pathLengthProblem(draft.path) ?? (regex ? regexPathProblem(draft.path, draft.annotations.rewrite) : undefined);
}

/**
 * nginx answers a request for `/foo` with a 301 to `/foo/` when a proxied
 * location is named `/foo/` (its "auto redirect"), even an exact one. The
 * Ingress spec says an Exact `/foo/` does not match `/foo` at all, so `/foo`
 * gets an exact location of its own that does what the longest matching
 * prefix would have done.
 */
function slashlessExactTwins(locations: readonly Location[]): Location[] {
  const exact = new Set(locations.filter((l) => l.match === 'exact').map((l) => l.path));
  const twins: Location[] = [];
  for (const location of locations) {
    if (location.match !== 'exact' || location.path === '/' || !location.path.endsWith('/')) continue;
    const bare = location.path.replace(/\/+$/, '') || '/';
    if (exact.has(bare)) continue;
    const fallback = longestPrefixMatch(locations, bare);
    if (!fallback) continue;
    exact.add(bare);
    twins.push({ ...fallback, path: bare, match: 'exact' });
  }
  return twins;
}

/** The prefix location that serves `path` (element-wise, longest wins). */
function longestPrefixMatch(locations: readonly Location[], path: string): Location | undefined {
  let best: Location | undefined;
  for (const location of locations) {
    if (location.match !== 'prefix') continue;
    const matches = location.path === '/' || path === location.path || path.startsWith(`${location.path}/`);
    if (matches && (!best || location.path.length > best.path.length)) best = location;
  }
  return best;
}

function compareRegex(a: Location, b: Location): number {
  if (a.path.length !== b.path.length) return b.path.length - a.path.length;
  return a.path < b.path ? 1 : a.path > b.path ? -1 : 0;
}

function comparePlain(a: Location, b: Location): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.match === b.match ? 0 : a.match === 'exact' ? -1 : 1;
}
