import { networkInterfaces } from 'node:os';
import { parseListenAddress } from '../admission/listenAddress.js';
import type { EndpointPolicy } from '../model/backends.js';
import type { Flags } from './flags.js';

/**
 * Which endpoints no backend may have: every port Portico and its nginx
 * listen on (`monitorPort`: the request metrics' listener, when enabled),
 * at this machine's addresses; in Kubernetes mode, loopback at any port (a
 * pod's loopback is Portico's own pod). Manifest mode proxies to loopback
 * backends on other ports (examples/demo.yaml). `topologyZone`: the controller's
 * zone, found at start when --enable-topology-aware-routing is on.
 */
export function endpointPolicyFromFlags(flags: Flags, monitorPort: number | undefined, topologyZone?: string): EndpointPolicy {
  const ports = [flags.httpPort, flags.httpsPort, flags.defaultServerPort, flags.statusPort, flags.healthzPort];
  if (flags.validatingWebhook) ports.push(parseListenAddress(flags.validatingWebhook).port);
  if (monitorPort !== undefined) ports.push(monitorPort);
  if (flags.profiling) ports.push(flags.profilerPort);
  if (flags.enableSslPassthrough) ports.push(flags.sslPassthroughProxyPort);
  const interfaces = new InterfaceAddresses();
  return {
    guard: {
      porticoPorts: [...new Set(ports)],
      get interfaceAddresses() {
        return interfaces.current();
      },
      refuseLoopbackEverywhere: !flags.manifests,
    },
    externalNames: !flags.disableSvcExternalName,
    topologyZone,
  };
}

/**
 * The machine's addresses, read again when a second has passed: an address
 * added after the start (a new interface, a moved pod IP) must not let a
 * backend loop to Portico's own port; each sync reads many endpoints, so not
 * on every read.
 */
class InterfaceAddresses {
  private addresses: readonly string[] = [];
  private readAt = Number.NEGATIVE_INFINITY;

  current(): readonly string[] {
    const now = performance.now();
    if (now - this.readAt >= REREAD_AFTER_MS) {
      this.addresses = Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
      this.readAt = now;
    }
    return this.addresses;
  }
}

const REREAD_AFTER_MS = 1000;
