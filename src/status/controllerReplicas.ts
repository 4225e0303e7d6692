// The controller pods of this Deployment/DaemonSet, found as ingress-nginx
// finds them: pods in the controller's namespace carrying the labels of its
// own pod, minus the labels that differ between revisions of the same
// workload. Outside a pod (no POD_NAME) there is nothing to look at.
import { KubeApiError, type KubeHttpClient } from '../kube/kubeHttpClient.js';
import type { ControllerIdentity } from '../kube/controllerIdentity.js';
import type { Pod } from '../kube/objects.js';

/** Labels a controller (ReplicaSet, DaemonSet) sets per revision. */
const REVISION_LABELS = new Set(['pod-template-hash', 'controller-revision-hash', 'pod-template-generation']);

export class ControllerReplicas {
  private selector: Promise<string | undefined> | undefined;

  constructor(
    private readonly client: KubeHttpClient,
    private readonly identity: ControllerIdentity,
  ) {}

  /** The replicas' pods, this one's included; undefined when they cannot be known (no POD_NAME, or its pod is gone). */
  async pods(): Promise<Pod[] | undefined> {
    const selector = await (this.selector ??= this.ownSelector());
    if (selector === undefined) return undefined;
    const list = await this.client.send<{ items?: Pod[] }>('GET', `${this.podsPath()}?labelSelector=${encodeURIComponent(selector)}`);
    return list.items ?? [];
  }

  private async ownSelector(): Promise<string | undefined> {
    const { podName } = this.identity;
    if (podName === undefined) return undefined;
    try {
      const pod = await this.client.send<Pod>('GET', `${this.podsPath()}/${encodeURIComponent(podName)}`);
      return replicaSelector(pod.metadata?.labels ?? {});
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
      this.selector = undefined; // try again next time
      throw error;
    }
  }

  private podsPath(): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.identity.namespace)}/pods`;
  }
}

/** `k=v,...` of the pod's labels without the per-revision ones. */
export function replicaSelector(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .filter(([key]) => !REVISION_LABELS.has(key))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}
