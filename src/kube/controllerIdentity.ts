// Who this controller process is. ingress-nginx reads POD_NAME and
// POD_NAMESPACE (set from the downward API) and refuses to start without them;
// Portico also runs outside a pod, so each has a fallback, and says which it took
// (a fallback namespace rarely has the Lease permissions of deploy/rbac.yaml).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export interface ControllerIdentity {
  /** POD_NAME: the pod whose labels find the sibling replicas; undefined outside a pod. */
  podName: string | undefined;
  /** POD_NAMESPACE, else the kubeconfig context's namespace, else `default`. The election Lease lives here. */
  namespace: string;
  /** Where `namespace` came from. */
  namespaceFrom: 'POD_NAMESPACE' | "the kubeconfig context's namespace" | 'no setting: the default';
  /** The leader-election identity: the pod name, else `<hostname>_<random>` so that processes on one host differ. */
  identity: string;
}

export function controllerIdentity(env: NodeJS.ProcessEnv, contextNamespace: string | undefined): ControllerIdentity {
  const podName = env['POD_NAME'] || undefined;
  const podNamespace = env['POD_NAMESPACE'] || undefined;
  const fromContext = contextNamespace || undefined;
  return {
    podName,
    namespace: podNamespace ?? fromContext ?? 'default',
    namespaceFrom: podNamespace ? 'POD_NAMESPACE' : fromContext ? "the kubeconfig context's namespace" : 'no setting: the default',
    identity: podName ?? `${hostname()}_${randomUUID().slice(0, 8)}`,
  };
}
