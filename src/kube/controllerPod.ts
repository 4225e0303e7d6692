// The controller's own pod, named by POD_NAME and POD_NAMESPACE (set from the
// Downward API, as in ingress-nginx's Deployment). Events about nginx go on
// it; its uid is what `kubectl describe pod` matches Events by.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { PodReference } from '../controller/events/eventRecorder.js';
import type { Logger } from '../log/logger.js';

export async function controllerPod(kubeConfig: KubeConfig, env: NodeJS.ProcessEnv, logger: Logger): Promise<PodReference | undefined> {
  const name = env.POD_NAME;
  const namespace = env.POD_NAMESPACE;
  if (!name || !namespace) {
    logger.info('POD_NAME or POD_NAMESPACE is not set: Events about nginx reloads are only logged');
    return undefined;
  }
  try {
    const pod = await kubeConfig.makeApiClient(CoreV1Api).readNamespacedPod({ namespace, name });
    return { namespace, name, uid: pod.metadata?.uid };
  } catch (error) {
    logger.warn({ pod: `${namespace}/${name}`, err: String(error) }, 'could not read the controller pod; its Events carry no uid');
    return { namespace, name };
  }
}
