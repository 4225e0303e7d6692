import type { Configuration } from '../model/types.js';
import type { ApplyResult } from './nginx/nginxProcess.js';

export type { ApplyResult };

/** What the controller needs of a data plane: make this configuration the running one. */
export interface DataPlane {
  apply(configuration: Configuration): Promise<ApplyResult>;
}
