// Services the TCP/UDP services ConfigMaps name (`<port>: namespace/service:port...`):
// a change to one of them or to its EndpointSlices must re-sync, as one of a
// Service an Ingress routes to does. Read from the ConfigMaps' raw data, the
// store parsing nothing: only entries whose key is a number count, so the
// global ConfigMap (also among the controller's ConfigMaps) names none; a
// misspelled value matches no Service, and the model reports it.
import type { ConfigMap } from '../kube/objects.js';

/** Whether `serviceKey` (`namespace/name`) is named by an entry of one of the ConfigMaps. */
export function isStreamService(serviceKey: string, configMaps: ReadonlyArray<ConfigMap | undefined>): boolean {
  for (const configMap of configMaps) {
    for (const [key, value] of Object.entries(configMap?.data ?? {})) {
      if (/^[0-9]+$/.test(key) && value.trim().split(':')[0] === serviceKey) return true;
    }
  }
  return false;
}
