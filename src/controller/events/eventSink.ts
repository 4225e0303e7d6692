// Where Kubernetes Events are written: the recorder decides what to write,
// this only writes it. Kept to create and patch, so the recorder can be
// driven against any API server (or a recording sink) the same way.
import type { CoreV1Event } from '@kubernetes/client-node';
import { KubeApiError, type KubeHttpClient } from '../../kube/kubeHttpClient.js';

export interface EventSink {
  /** Creates the Event in its namespace; resolves to the name the server gave it. */
  create(event: CoreV1Event): Promise<string>;
  /**
   * Sets the count and last timestamp of an Event created earlier. 'gone'
   * when it no longer exists (the API server expires Events after an hour).
   */
  patchCount(namespace: string, name: string, count: number, lastTimestamp: Date): Promise<'patched' | 'gone'>;
}

/**
 * core/v1 Events through Portico's pooled API client (the controller's
 * ClusterRole grants create and patch). client-node's API classes open a new
 * TLS connection, with a new secure context, per request: about 1.6 ms of CPU
 * per Event, 8 s while 5,000 Ingresses were first synced (bench/README.md).
 */
export class KubernetesEventSink implements EventSink {
  constructor(private readonly client: KubeHttpClient) {}

  async create(event: CoreV1Event): Promise<string> {
    const namespace = event.metadata.namespace ?? 'default';
    const created = await this.client.send<CoreV1Event>('POST', eventsPath(namespace), { body: event });
    return created.metadata.name ?? '';
  }

  async patchCount(namespace: string, name: string, count: number, lastTimestamp: Date): Promise<'patched' | 'gone'> {
    try {
      await this.client.send('PATCH', `${eventsPath(namespace)}/${encodeURIComponent(name)}`, {
        body: [
          { op: 'replace', path: '/count', value: count },
          { op: 'replace', path: '/lastTimestamp', value: lastTimestamp.toISOString() },
        ],
        contentType: 'application/json-patch+json',
      });
      return 'patched';
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return 'gone';
      throw error;
    }
  }
}

function eventsPath(namespace: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`;
}
