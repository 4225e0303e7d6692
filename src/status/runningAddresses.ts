// Reads what the address computation needs from the API server: the publish
// Service, or the controller's pods and their nodes. Read fresh on every
// status round (once a minute by default), as ingress-nginx does.
import { KubeApiError, type KubeHttpClient } from '../kube/kubeHttpClient.js';
import type { Node, Service } from '../kube/objects.js';
import type { ControllerReplicas } from './controllerReplicas.js';
import {
  addressesFromList,
  addressesFromNodes,
  addressesFromService,
  standardized,
  type LoadBalancerAddress,
} from './loadBalancerAddresses.js';

export interface AddressSettings {
  /** `--publish-status-address`. */
  publishStatusAddress: string;
  /** `--publish-service` (`namespace/name`). */
  publishService: string;
  /** `--report-node-internal-ip-address`. */
  reportNodeInternalIpAddress: boolean;
}

export interface RunningAddresses {
  addresses: LoadBalancerAddress[];
  /** They are the nodes of the controller pods (neither flag set). */
  fromNodes: boolean;
}

export async function runningAddresses(
  client: KubeHttpClient,
  replicas: ControllerReplicas,
  settings: AddressSettings,
): Promise<RunningAddresses> {
  if (settings.publishStatusAddress !== '') {
    return { addresses: standardized(addressesFromList(settings.publishStatusAddress)), fromNodes: false };
  }
  if (settings.publishService !== '') {
    const [namespace = '', name = '', ...rest] = settings.publishService.split('/');
    if (namespace === '' || name === '' || rest.length > 0)
      throw new Error(`--publish-service must be namespace/name, not ${settings.publishService}`);
    const service = await client.send<Service>(
      'GET',
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/services/${encodeURIComponent(name)}`,
    );
    const addresses = addressesFromService(service);
    if (addresses === undefined) {
      throw new Error(`cannot take an address from Service ${settings.publishService} of type ${service.spec?.type ?? ''}`);
    }
    return { addresses: standardized(addresses), fromNodes: false };
  }
  const pods = (await replicas.pods()) ?? [];
  const nodes = new Map<string, Node>();
  for (const nodeName of new Set(pods.map((pod) => pod.spec?.nodeName ?? '').filter((n) => n !== ''))) {
    try {
      nodes.set(nodeName, await client.send<Node>('GET', `/api/v1/nodes/${encodeURIComponent(nodeName)}`));
    } catch (error) {
      if (!(error instanceof KubeApiError && error.statusCode === 404)) throw error;
    }
  }
  return { addresses: standardized(addressesFromNodes(pods, nodes, settings.reportNodeInternalIpAddress)), fromNodes: true };
}
