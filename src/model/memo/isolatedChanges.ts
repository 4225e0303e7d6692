// A model run after a change to Ingresses that share nothing with the others,
// made from the last run's result instead of from all 10,000 Ingresses
// (docs/scale.md, "Isolated changes"). What an Ingress contributes meets the
// other Ingresses only at its hosts (servers, TLS, canaries, aliases) and its
// backends (balancing claims); when every changed Ingress, in its old version
// and its new one, has hosts and backends no other Ingress names, and uses
// none of what is decided across hosts (server-alias, from-to-www-redirect,
// stream-snippet, a rule without a host, the catch-all of a ruleless
// Ingress, an annotation naming another object; a canary or an affinity
// meets others only at their hosts and backends), the
// result is the last one with those hosts' servers and those backends
// replaced by a model run over the changed Ingresses alone. Anything else
// (new settings, a Service, EndpointSlice, Secret or ConfigMap changed, a
// shared host) is a whole run. test/model/isolatedChanges.test.ts compares
// the two after random changes.
import { ingressKey } from '../affinityScope.js';
import { BackendTable, unclaimedBalancing } from '../backendTable.js';
import type { AcceptedIngress, ModelInput, ModelResult } from '../buildConfiguration.js';
import { CATCH_ALL, ingressRef } from '../ingressRules.js';
import type { IngressShare } from '../ingressShare.js';
import { backendOrder, byIngress, certificateOrder, serverOrder } from '../configurationOrder.js';
import { referenceContext, resolveReferencedObjects } from '../referencedObjects.js';
import { SecretFileSet } from '../secretFiles.js';
import type { Balancing, Certificate, IngressProblem, Server } from '../types.js';
import type { BuiltBackendMemo } from './builtBackendMemo.js';
import type { IngressShareMemo } from './ingressShareMemo.js';

/** More changed Ingresses than this: a whole run (the checks and the merge are per change). */
const MAX_CHANGES = 32;

interface LastRun {
  input: ModelInput;
  generation: number;
  /** The accepted Ingresses (IngressAcceptance keeps one object per version). */
  entries: Set<AcceptedIngress>;
  /** How many accepted Ingresses (canaries too) name each host, and route to each backend. */
  hostUsers: Map<string, number>;
  backendUsers: Map<string, number>;
  /** Backends a default-backend annotation names (resolveReferencedObjects): built whoever routes to them. */
  pinned: Set<string>;
  /** Per backend, the balancing every Ingress routing to it asks for (balancingKey), when they all ask for the same. */
  agreed: Map<string, string>;
  /** Names some Ingress asks for as a server-alias or a www twin: granted or refused by what hosts exist. */
  wantedNames: Set<string>;
  result: ModelResult;
}

interface Footprint {
  hosts: string[];
  backends: string[];
  /** balancingKey of the Ingress's balancing, which it claims for each of its backends. */
  balancing: string;
}

export class IsolatedChanges {
  #last: LastRun | undefined;
  readonly #footprints = new WeakMap<AcceptedIngress, Footprint>();
  /** Runs made from the last result (for tests and the bench). */
  applied = 0;

  constructor(
    private readonly shares: IngressShareMemo,
    private readonly builtBackends: BuiltBackendMemo,
  ) {}

  /** After a whole run: what the next one may start from. */
  remember(input: ModelInput, result: ModelResult): void {
    const generation = input.lookup.objectGeneration?.();
    this.#last = undefined;
    if (generation === undefined) return;
    const hostUsers = new Map<string, number>();
    const backendUsers = new Map<string, number>();
    const agreed = new Map<string, string>();
    const disagreed = new Set<string>();
    for (const entry of input.ingresses) {
      const footprint = this.#footprint(entry);
      count(hostUsers, backendUsers, footprint, 1);
      for (const backend of footprint.backends) {
        if (disagreed.has(backend)) continue;
        const known = agreed.get(backend);
        if (known === undefined) agreed.set(backend, footprint.balancing);
        else if (known !== footprint.balancing) {
          agreed.delete(backend);
          disagreed.add(backend);
        }
      }
    }
    // Backends no rule path names: default-backend annotations'. The default backend needs no such care: a run over
    // the changed Ingresses alone builds it too.
    const pinned = new Set<string>();
    for (const server of result.configuration.servers) {
      for (const { annotations } of server.locations) {
        const name = annotations.errorPages?.defaultBackend;
        if (name !== undefined) pinned.add(name);
      }
    }
    const entries = new Set(input.ingresses);
    this.#last = { input, generation, entries, hostUsers, backendUsers, pinned, agreed, wantedNames: wantedNames(input.ingresses), result };
  }

  /** The result for `input` from the last run's, when only isolated Ingresses changed; undefined: a whole run is needed. */
  apply(input: ModelInput, build: (input: ModelInput) => ModelResult): ModelResult | undefined {
    const last = this.#last;
    if (last === undefined || !sameSurroundings(last, input)) return undefined;
    // Changed versions are new objects: an edit is the old one gone and the new one added.
    const entries = new Set<AcceptedIngress>();
    const added: AcceptedIngress[] = [];
    for (const entry of input.ingresses) {
      entries.add(entry);
      if (!last.entries.has(entry) && added.push(entry) > MAX_CHANGES) return undefined;
    }
    const removed: AcceptedIngress[] = [];
    // As many entries, as many added as removed: no need to look for the removed ones.
    if (entries.size !== last.entries.size || added.length > 0)
      for (const entry of last.entries) if (!entries.has(entry) && removed.push(entry) > MAX_CHANGES) return undefined;
    if (added.length + removed.length === 0) return undefined;

    const footprints = { added: [] as Footprint[], removed: [] as Footprint[] };
    for (const [list, into] of [
      [added, footprints.added],
      [removed, footprints.removed],
    ] as const) {
      for (const entry of list) {
        const footprint = this.#isolatable(entry, input);
        if (footprint === undefined) return undefined;
        into.push(footprint);
      }
    }
    // No other Ingress may name these hosts or backends, nor ask for one of the hosts as its alias or www twin.
    const leaving = { hosts: new Map<string, number>(), backends: new Map<string, number>() };
    for (const footprint of footprints.removed) count(leaving.hosts, leaving.backends, footprint, 1);
    const hosts = new Set<string>();
    /** Backends only the changed Ingresses route to: made again. The others must come out the same (#staysSame). */
    const backends = new Set<string>();
    for (const footprint of [...footprints.added, ...footprints.removed]) {
      for (const host of footprint.hosts) {
        if ((last.hostUsers.get(host) ?? 0) !== (leaving.hosts.get(host) ?? 0) || last.wantedNames.has(host)) return undefined;
        hosts.add(host);
      }
      for (const backend of footprint.backends) {
        const remaining = (last.backendUsers.get(backend) ?? 0) - (leaving.backends.get(backend) ?? 0);
        if (remaining === 0 && !last.pinned.has(backend)) backends.add(backend);
        else if (remaining === 0 || !this.#staysSame(backend, last, footprints.added)) return undefined;
      }
    }

    const alone = build({ ...input, ingresses: added });
    const previous = last.result;
    // Told whatever the Ingresses: the same settings and objects (sameSurroundings) give the same warnings.
    if (!sameStrings(alone.warnings, previous.warnings)) return undefined;
    const servers = merge(previous.configuration.servers, alone.configuration.servers, (server) => hosts.has(server.hostname), serverOrder);
    const result: ModelResult = {
      configuration: {
        ...previous.configuration,
        servers,
        backends: merge(
          previous.configuration.backends,
          alone.configuration.backends,
          (backend) => backends.has(backend.name),
          backendOrder,
        ),
        certificates: certificatesOf(servers, previous.configuration.defaultCertificate, [
          ...previous.configuration.certificates,
          ...alone.configuration.certificates,
        ]),
      },
      problems: problemsAfter(previous.problems, alone.problems, new Set([...added, ...removed].map(keyOf))),
      warnings: previous.warnings,
      configMapProblems: previous.configMapProblems,
    };
    for (const footprint of footprints.removed) count(last.hostUsers, last.backendUsers, footprint, -1);
    for (const footprint of footprints.added) count(last.hostUsers, last.backendUsers, footprint, 1);
    for (const backend of backends) {
      const asked = new Set(footprints.added.filter((footprint) => footprint.backends.includes(backend)).map((f) => f.balancing));
      const [only] = asked;
      if (asked.size === 1 && only !== undefined) last.agreed.set(backend, only);
      else last.agreed.delete(backend);
    }
    this.#last = { ...last, input, entries, result };
    this.applied++;
    return result;
  }

  /**
   * Whether a backend other Ingresses route to too comes out of the change as it was: every Ingress that routes
   * to it, those added too, asks for the same balancing, which sets no cookie scoped by hosts (affinity), and no
   * endpoint was refused (whose problem goes to each Ingress in the order
   * backends were first named), as the last whole run that built it knows. A canary of it stays: canaries meet their
   * primaries at hosts, and the changed Ingresses' hosts are their own.
   */
  #staysSame(backend: string, last: LastRun, added: readonly Footprint[]): boolean {
    const agreed = last.agreed.get(backend);
    if (agreed === undefined || added.some((footprint) => footprint.backends.includes(backend) && footprint.balancing !== agreed))
      return false;
    const before = last.result.configuration.backends.find((candidate) => candidate.name === backend);
    return before !== undefined && before.balancing.affinity === undefined && this.builtBackends.refused(backend)?.length === 0;
  }

  /** Its hosts and backends, when the Ingress version decides nothing across hosts. */
  #isolatable(entry: AcceptedIngress, input: ModelInput): Footprint | undefined {
    const { annotations } = entry;
    const { location } = annotations;
    if (annotations.streamSnippet !== undefined || location.serverAlias !== undefined || location.fromToWwwRedirect === true)
      return undefined;
    const share = this.shares.share(entry.ingress);
    if (share.ruleless || share.ruleHosts.includes(CATCH_ALL) || !namesNothing(entry, share, input)) return undefined;
    return this.#footprint(entry);
  }

  /** Kept per entry: a whole run counts every Ingress's, and IngressAcceptance keeps one entry per version. */
  #footprint(entry: AcceptedIngress): Footprint {
    let footprint = this.#footprints.get(entry);
    if (footprint === undefined) {
      footprint = footprintOf(this.shares.share(entry.ingress), balancingKey(entry.annotations.balancing));
      this.#footprints.set(entry, footprint);
    }
    return footprint;
  }
}

/** What withHostAliases grants or refuses by whether a host of that name exists (hostAliases.ts). */
function wantedNames(ingresses: readonly AcceptedIngress[]): Set<string> {
  const names = new Set<string>();
  for (const { ingress, annotations } of ingresses) {
    const { serverAlias, fromToWwwRedirect } = annotations.location;
    for (const alias of serverAlias ?? []) names.add(alias);
    if (fromToWwwRedirect !== true) continue;
    for (const rule of ingress.spec?.rules ?? [])
      if (rule.host !== undefined) names.add(rule.host.startsWith('www.') ? rule.host.slice('www.'.length) : `www.${rule.host}`);
  }
  return names;
}

function footprintOf(share: IngressShare, balancing: string): Footprint {
  const backends = new Set(share.paths.map((path) => path.backend));
  if (share.ownDefault !== undefined) backends.add(share.ownDefault.backend);
  return { hosts: [...new Set(share.ruleHosts)], backends: [...backends], balancing };
}

const UNDEFINED = '\u0000undefined';

/**
 * Equal for Balancing values BackendTable.balancingOf takes for equal (isDeepStrictEqual: the same own keys,
 * an undefined value included; at any depth, where JSON would leave the key out).
 */
function balancingKey(balancing: Balancing): string {
  return JSON.stringify(balancing, (_name, value: unknown) => (value === undefined ? UNDEFINED : value));
}

function count(hostUsers: Map<string, number>, backendUsers: Map<string, number>, footprint: Footprint, by: number): void {
  for (const host of footprint.hosts) hostUsers.set(host, (hostUsers.get(host) ?? 0) + by);
  for (const backend of footprint.backends) backendUsers.set(backend, (backendUsers.get(backend) ?? 0) + by);
}

/** Whether its annotations name no Secret, ConfigMap or Service: resolving them then changes nothing and tells nothing. */
function namesNothing(entry: AcceptedIngress, share: IngressShare, input: ModelInput): boolean {
  const problems: IngressProblem[] = [];
  const secretFiles = new SecretFileSet();
  const backends = new BackendTable(input.lookup, unclaimedBalancing(input.settings), input.endpoints, []);
  const resolved = resolveReferencedObjects(
    entry.annotations.location,
    referenceContext(input, share.ref, { secretFiles, problems, backends }),
  );
  return resolved === entry.annotations.location && problems.length === 0 && secretFiles.list().length === 0;
}

/** Everything but the Ingresses is what the last run read. */
function sameSurroundings(last: LastRun, input: ModelInput): boolean {
  const before = last.input;
  return (
    input.lookup === before.lookup &&
    input.lookup.objectGeneration?.() === last.generation &&
    input.settings === before.settings &&
    input.defaultAnnotations === before.defaultAnnotations &&
    input.defaultBackendService === before.defaultBackendService &&
    input.defaultSslCertificate === before.defaultSslCertificate &&
    input.endpoints === before.endpoints &&
    input.streamServices === before.streamServices &&
    input.sslPassthrough !== true &&
    before.sslPassthrough !== true
  );
}

function keyOf({ ingress }: AcceptedIngress): string {
  return ingressKey(ingressRef(ingress));
}

/** `previous` (in `order`) without what `replaced` picks, with `fresh`'s of those, each put in its place. */
function merge<T>(previous: readonly T[], fresh: readonly T[], replaced: (item: T) => boolean, order: (a: T, b: T) => number): T[] {
  const merged = previous.filter((item) => !replaced(item));
  for (const item of fresh) {
    if (!replaced(item)) continue;
    let low = 0;
    let high = merged.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (order(merged[middle]!, item) < 0) low = middle + 1;
      else high = middle;
    }
    merged.splice(low, 0, item);
  }
  return merged;
}

/** The certificates the servers and the default name, by id (the last run's object where both have one). */
function certificatesOf(servers: readonly Server[], defaultCertificate: string | undefined, known: readonly Certificate[]): Certificate[] {
  const used = new Set<string>();
  if (defaultCertificate !== undefined) used.add(defaultCertificate);
  for (const server of servers) if (server.certificate !== undefined) used.add(server.certificate);
  const byId = new Map<string, Certificate>();
  for (const certificate of known) if (used.has(certificate.id) && !byId.has(certificate.id)) byId.set(certificate.id, certificate);
  return [...byId.values()].sort(certificateOrder);
}

/** The last run's problems of the Ingresses that did not change, with the changed ones' from their own run, in the model's order. */
function problemsAfter(
  previous: readonly IngressProblem[],
  fresh: readonly IngressProblem[],
  changed: ReadonlySet<string>,
): IngressProblem[] {
  const kept = previous.filter(({ ingress }) => !changed.has(ingressKey(ingress)));
  return [...kept, ...fresh].sort(byIngress);
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
