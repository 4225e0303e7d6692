import type { Configuration } from '../model/types.js';
import type { ApplyResult } from './nginx/nginxProcess.js';

export type { ApplyResult };

/** How making a configuration the running one ended; `superseded`: a newer one arrived before its turn and took its place. */
export type ApplyOutcome = ApplyResult | { readonly outcome: 'superseded' };

export interface Applying {
  /** Settles once nginx runs the configuration's structure, refused it, or moved on to a newer one. */
  readonly done: Promise<ApplyOutcome>;
}

/**
 * What the controller needs of a data plane: make this configuration the
 * running one. `apply` resolves once what can change live is in place; the
 * structure follows in `done`. Calls are made one after another, but their
 * `done`s may overlap.
 */
export interface DataPlane {
  apply(configuration: Configuration): Promise<Applying>;
}
