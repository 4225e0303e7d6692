// Where Kubernetes Events are written: the recorder decides what to write,
// this only writes it. Kept to create and patch, so the recorder can be
// driven against any API server (or a recording sink) the same way.
import { CoreV1Api, type CoreV1Event, type KubeConfig } from '@kubernetes/client-node';

export interface EventSink {
  /** Creates the Event in its namespace; resolves to the name the server gave it. */
  create(event: CoreV1Event): Promise<string>;
  /**
   * Sets the count and last timestamp of an Event created earlier. 'gone'
   * when it no longer exists (the API server expires Events after an hour).
   */
  patchCount(namespace: string, name: string, count: number, lastTimestamp: Date): Promise<'patched' | 'gone'>;
}

/** core/v1 Events through client-node (the controller's ClusterRole grants create and patch). */
export class KubernetesEventSink implements EventSink {
  private readonly api: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.api = kubeConfig.makeApiClient(CoreV1Api);
  }

  async create(event: CoreV1Event): Promise<string> {
    const namespace = event.metadata.namespace ?? 'default';
    const created = await this.api.createNamespacedEvent({ namespace, body: event });
    return created.metadata.name ?? '';
  }

  async patchCount(namespace: string, name: string, count: number, lastTimestamp: Date): Promise<'patched' | 'gone'> {
    try {
      await this.api.patchNamespacedEvent({
        namespace,
        name,
        // client-node sends a JSON patch by default.
        body: [
          { op: 'replace', path: '/count', value: count },
          { op: 'replace', path: '/lastTimestamp', value: lastTimestamp.toISOString() },
        ],
      });
      return 'patched';
    } catch (error) {
      if ((error as { code?: number }).code === 404) return 'gone';
      throw error;
    }
  }
}
