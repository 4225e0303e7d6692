// Where the start's critical path went, from the process's start to serving:
// one 'start phases' log line at the first serve, so that a slow start says
// which step was slow (bench/startToServing.ts prints the same figures).

/** The controller's steps from the process's start to serving, in order; each is timed from the end of the one before. */
export const START_PHASES = ['moduleLoad', 'setup', 'source', 'sync', 'health'] as const;
export type StartPhase = (typeof START_PHASES)[number];

/** Parts of the first sync, measured where they happen (the sync loop, the data plane). */
export interface FirstSyncParts {
  modelMs?: number;
  prepareMs?: number;
  renderMs?: number;
  nginxStartMs?: number;
  pushMs?: number;
}

const FIRST_SYNC_PARTS = [
  'modelMs',
  'prepareMs',
  'renderMs',
  'nginxStartMs',
  'pushMs',
] as const satisfies readonly (keyof FirstSyncParts)[];

export type StartPhasesFields = { [P in StartPhase as `${P}Ms`]?: number } & FirstSyncParts & { totalMs: number };

export class StartPhases {
  private readonly ended = new Map<StartPhase, number>();

  /** `now` counts from the process's start (performance.now()'s origin), so the first phase is the module load. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The phase ends now. */
  end(phase: StartPhase): void {
    this.ended.set(phase, this.now());
  }

  /** Each ended phase's duration, rounded to ms, with the first sync's parts, and the total so far. */
  fields(parts: FirstSyncParts = {}): StartPhasesFields {
    const fields: StartPhasesFields = { totalMs: Math.round(this.now()) };
    let previous = 0;
    for (const phase of START_PHASES) {
      const at = this.ended.get(phase);
      if (at === undefined) continue;
      fields[`${phase}Ms`] = Math.round(at - previous);
      previous = at;
    }
    for (const name of FIRST_SYNC_PARTS) {
      const ms = parts[name];
      if (ms !== undefined) fields[name] = Math.round(ms);
    }
    return fields;
  }
}
