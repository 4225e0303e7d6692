import { networkInterfaces } from 'node:os';
import { parseListenAddress } from '../admission/listenAddress.js';
import type { EndpointPolicy } from '../model/backends.js';
import type { Flags } from './flags.js';

/**
 * Which endpoints no backend may have: every port Portico and its nginx
 * listen on (`monitorPort`: the request metrics' listener, when enabled),
 * at this machine's addresses; in Kubernetes mode, loopback at any port (a
 * pod's loopback is Portico's own pod). Manifest mode proxies to loopback
 * backends on other ports (examples/demo.yaml).
 */
export function endpointPolicyFromFlags(flags: Flags, monitorPort: number | undefined): EndpointPolicy {
  const ports = [flags.httpPort, flags.httpsPort, flags.defaultServerPort, flags.statusPort, flags.healthzPort];
  if (flags.validatingWebhook) ports.push(parseListenAddress(flags.validatingWebhook).port);
  if (monitorPort !== undefined) ports.push(monitorPort);
  const interfaceAddresses = Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
  return {
    guard: { porticoPorts: [...new Set(ports)], interfaceAddresses, refuseLoopbackEverywhere: !flags.manifests },
    externalNames: !flags.disableSvcExternalName,
  };
}
