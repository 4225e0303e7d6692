// Problems of entries of the controller's ConfigMaps (the TCP/UDP services'),
// as Warning Events on the ConfigMap (the recorder logs each one too). A
// problem is recorded when it appears: not again at every sync while it
// lasts (each endpoint change syncs), but again once it went away and came back.
import type { ConfigMapProblem } from '../model/stream/streamServices.js';
import type { StoreSnapshot } from '../store/store.js';
import type { ControllerEventRecorder } from './events/eventRecorder.js';

export class ConfigMapProblemEvents {
  private reported = new Set<string>();

  constructor(
    private readonly store: Pick<StoreSnapshot, 'configMap'>,
    private readonly events: ControllerEventRecorder,
  ) {}

  /** The problems of one sync. */
  report(problems: readonly ConfigMapProblem[]): void {
    const current = new Set<string>();
    for (const problem of problems) {
      const configMap = this.store.configMap(problem.configMap);
      if (!configMap) continue;
      const key = JSON.stringify([problem.configMap, configMap.metadata?.resourceVersion, problem.reason, problem.message]);
      current.add(key);
      if (!this.reported.has(key)) this.events.recordOnConfigMap(configMap, 'Warning', problem.reason, problem.message);
    }
    this.reported = current;
  }
}
