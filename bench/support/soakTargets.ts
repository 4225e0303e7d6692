// What the soak's load asks for, and what counts as a failure for each
// target. Stable hosts must always answer 200 from their backends. Of the
// changing hosts, `/` exists before and after every change, so the same holds
// (from either backend set for the churned one). The edited host's round path
// routes to a backend of its own; until it was first served (the change not
// applied yet), and after the next round removed it, `/` answers it instead,
// which is not a failure; in between it is.
import { OK, PENDING, type Answer, type SoakTarget } from './soakLoad.js';
import type { IngressFile, SoakRole } from './soakManifests.js';

/** An echo backend in the test network, by the instance name it answers with. */
export interface SoakBackend {
  readonly instance: string;
  readonly address: string;
}

export interface SoakBackends {
  /** Behind every sampled Ingress but the churned one. */
  readonly stable: readonly SoakBackend[];
  /** Behind the edited Ingress's `api-<i>` Service, which its round path routes to (its `/` goes to the stable ones). */
  readonly round: readonly SoakBackend[];
  /** The churned Ingress's two backend sets: its EndpointSlices alternate between them. */
  readonly churn: readonly [readonly SoakBackend[], readonly SoakBackend[]];
}

export const FAILURE = {
  connection: 'connection error or timeout',
  serverError: '5xx',
  notFound: '404 for a path that exists',
  lostRoute: "the round path answered by `/`'s backend once served",
  wrong: 'other status, or not from its backends',
} as const;

/** The edited host's round path: where the load sends it, and since when it is served. */
export interface RoundPath {
  /** The round's new path replaces the previous one, in a file written at `at` (performance.now()). */
  moveTo(path: string, at: number): void;
  /** A 200 for `path` arrived now: from here until its removal a 404 is a failure. */
  served(path: string): void;
}

function judgeAnswer(answer: Answer, instances: ReadonlySet<string>, onNotFound: () => string): string {
  if ('error' in answer) return FAILURE.connection;
  if (answer.status >= 500) return FAILURE.serverError;
  if (answer.status === 404) return onNotFound();
  if (answer.status !== 200 || answer.instance === undefined || !instances.has(answer.instance)) return FAILURE.wrong;
  return OK;
}

export function soakTargets(
  sample: Readonly<Record<SoakRole, IngressFile>>,
  backends: SoakBackends,
): { all: SoakTarget[]; editedPath: RoundPath } {
  const stable = new Set(backends.stable.map((backend) => backend.instance));
  const churn = new Set(backends.churn.flat().map((backend) => backend.instance));
  const fixed = (name: string, role: SoakRole, path: string, https = false, instances = stable): SoakTarget => ({
    name,
    host: sample[role].host(),
    https,
    path: () => path,
    judge: (answer) => judgeAnswer(answer, instances, () => FAILURE.notFound),
  });

  const paths = new Map<string, { servedAt?: number; removedAt?: number }>();
  let current = '/soak-round-0';
  paths.set(current, {});
  const editedPath: RoundPath = {
    moveTo(path, at) {
      paths.get(current)!.removedAt = at;
      paths.set(path, {});
      current = path;
    },
    served(path) {
      const record = paths.get(path);
      if (record !== undefined) record.servedAt ??= performance.now();
    },
  };
  const round = new Set(backends.round.map((backend) => backend.instance));
  // The host's `/` (Prefix) takes the round path until its location exists, and again once removed: a 404 is a failure.
  const roundPath: SoakTarget = {
    name: 'edited: the round path',
    host: sample.edited.host(),
    https: false,
    path: () => current,
    judge(answer, path, sentAt) {
      if ('error' in answer || answer.instance === undefined || !stable.has(answer.instance)) {
        const verdict = judgeAnswer(answer, round, () => FAILURE.notFound);
        if (verdict === OK) editedPath.served(path);
        return verdict;
      }
      const record = paths.get(path)!;
      const existed =
        record.servedAt !== undefined && sentAt > record.servedAt && (record.removedAt === undefined || sentAt < record.removedAt);
      return existed ? FAILURE.lostRoute : PENDING;
    },
  };

  return {
    all: [
      fixed('plain /', 'plain', '/'),
      fixed('plain /api', 'plain', '/api'),
      fixed('TLS /', 'tls', '/', true),
      fixed('regex /api/soak', 'regex', '/api/soak'),
      fixed('annotated /', 'annotated', '/'),
      fixed('edited /', 'edited', '/'),
      roundPath,
      fixed('churned /', 'churned', '/', false, churn),
      fixed('rotated / (TLS)', 'rotated', '/', true),
    ],
    editedPath,
  };
}
