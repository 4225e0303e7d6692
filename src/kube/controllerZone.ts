// `--enable-topology-aware-routing`: the zone the controller runs in, as
// ingress-nginx finds it once at start: POD_NAME/POD_NAMESPACE name its pod,
// the pod its node, the node's topology.kubernetes.io/zone label its zone.
import type { Logger } from '../log/logger.js';
import type { KubeHttpClient } from './kubeHttpClient.js';
import type { Node, Pod } from './objects.js';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** The controller's zone, or undefined (topology hints are then not used) when it cannot be found. */
export async function controllerZone(client: KubeHttpClient, env: NodeJS.ProcessEnv, logger: Logger): Promise<string | undefined> {
  const name = env.POD_NAME;
  const namespace = env.POD_NAMESPACE;
  if (!name || !namespace) {
    logger.warn('--enable-topology-aware-routing: POD_NAME or POD_NAMESPACE is not set, so the zone is unknown; hints are not used');
    return undefined;
  }
  try {
    const pod = await client.send<Pod>('GET', `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`);
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) throw new Error(`pod ${namespace}/${name} has no spec.nodeName`);
    const node = await client.send<Node>('GET', `/api/v1/nodes/${encodeURIComponent(nodeName)}`);
    const zone = node.metadata?.labels?.[ZONE_LABEL];
    if (!zone) throw new Error(`node ${nodeName} has no ${ZONE_LABEL} label`);
    logger.info({ zone, node: nodeName }, 'topology-aware routing: endpoints hinted for this zone are preferred');
    return zone;
  } catch (error) {
    logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      '--enable-topology-aware-routing: zone unknown; hints are not used',
    );
    return undefined;
  }
}
