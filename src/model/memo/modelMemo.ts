// What one model run keeps for the next, so that a sync after a small change
// recomputes only the parts whose inputs changed (docs/scale.md, "The model
// memoized per object"). buildConfiguration(input, memo) gives exactly what
// buildConfiguration(input) gives: each table is keyed on everything its
// computation reads (test/model/modelMemo.test.ts checks it against runs from
// scratch after random changes). Each table keeps the entries of the last run
// only.
import { BuiltBackendMemo } from './builtBackendMemo.js';
import { FinishedBackendMemo } from './finishedBackendMemo.js';
import { IngressShareMemo } from './ingressShareMemo.js';
import { IsolatedChanges } from './isolatedChanges.js';
import { ServerMemo } from './serverMemo.js';

export class ModelMemo {
  readonly shares = new IngressShareMemo();
  readonly builtBackends = new BuiltBackendMemo();
  readonly finishedBackends = new FinishedBackendMemo();
  readonly servers = new ServerMemo();
  /** The last run's result, which a run after isolated Ingress changes starts from. */
  readonly isolated = new IsolatedChanges(this.shares, this.builtBackends);

  /** A run is over: each table drops what it did not use. */
  rotate(): void {
    this.builtBackends.rotate();
    this.finishedBackends.rotate();
    this.servers.rotate();
  }

  /** Entries held, per table (for the bench). */
  get sizes(): { builtBackends: number; finishedBackends: number; servers: number } {
    return { builtBackends: this.builtBackends.size, finishedBackends: this.finishedBackends.size, servers: this.servers.size };
  }
}
