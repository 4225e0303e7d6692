import type { Configuration } from '../model/types.js';
import type { ApplyResult } from './nginx/nginxProcess.js';
import type { ConfigOrigin } from './nginx/render/configOrigins.js';

export type { ApplyResult, ConfigOrigin };

/**
 * nginx refused the configuration; `origin`: what wrote the line nginx named
 * (undefined when it named none of ours), so the controller can leave that object out.
 */
export interface Refused {
  readonly outcome: 'rejected';
  readonly error: string;
  readonly origin?: ConfigOrigin;
}

/** How making a configuration the running one ended; `superseded`: a newer one arrived before its turn and took its place. */
export type ApplyOutcome = Exclude<ApplyResult, { outcome: 'rejected' }> | Refused | { readonly outcome: 'superseded' };

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
