// The one endpoint of a backend with service-upstream: its Service's ClusterIP
// at the Service port, as ingress-nginx's getServiceClusterEndpoint. A Service
// without a ClusterIP (headless, ExternalName) or without the port keeps its
// endpoints, as there, and the Ingresses routing to it are told why.
import { isIP } from 'node:net';
import type { ServiceLookup, ServiceReference } from './backends.js';
import type { Endpoint } from './types.js';

export type ClusterIpEndpoint = { endpoint: Endpoint } | { unusable: string };

export function clusterIpEndpoint(ref: ServiceReference, lookup: ServiceLookup): ClusterIpEndpoint {
  const service = lookup.service(`${ref.namespace}/${ref.name}`);
  if (service === undefined) return { unusable: 'the Service does not exist' };
  const clusterIp = service.spec?.clusterIP;
  if (clusterIp === undefined || clusterIp === '' || clusterIp === 'None') {
    const kind = service.spec?.type === 'ExternalName' ? 'an ExternalName Service' : 'a headless Service';
    return { unusable: `${kind} has no ClusterIP` };
  }
  // Objects from manifests are not validated: only an IP literal can reach the balancer.
  if (isIP(clusterIp) === 0) return { unusable: `the Service's clusterIP ${JSON.stringify(clusterIp.slice(0, 64))} is not an IP address` };
  const port = (service.spec?.ports ?? []).find((candidate) =>
    typeof ref.port === 'number' ? candidate.port === ref.port : candidate.name === ref.port,
  );
  if (port === undefined || !Number.isInteger(port.port) || port.port < 1 || port.port > 65535) {
    return { unusable: `the Service has no port ${JSON.stringify(ref.port)} from 1 to 65535` };
  }
  return { endpoint: { address: clusterIp, port: port.port } };
}
