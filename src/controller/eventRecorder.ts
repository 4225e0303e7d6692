// Kubernetes Events on Ingresses: how a user learns, with `kubectl describe
// ingress`, that a version was refused or a certificate does not fit. The
// same problem is reported once, not on every sync.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { hostname } from 'node:os';
import type { Logger } from '../log/logger.js';
import type { Ingress } from '../kube/objects.js';

export type EventType = 'Normal' | 'Warning';

export interface IngressEventRecorder {
  record(ingress: Ingress, type: EventType, reason: string, message: string): void;
}

const COMPONENT = 'portico';

/** Logs each event; with an API client also creates a core/v1 Event. */
export class EventRecorder implements IngressEventRecorder {
  private readonly reported = new Map<string, string>();
  private readonly api: CoreV1Api | undefined;

  constructor(
    private readonly logger: Logger,
    kubeConfig?: KubeConfig,
  ) {
    this.api = kubeConfig?.makeApiClient(CoreV1Api);
  }

  record(ingress: Ingress, type: EventType, reason: string, message: string): void {
    const namespace = ingress.metadata?.namespace ?? 'default';
    const name = ingress.metadata?.name ?? '';
    // Once per Ingress version and reason: a new version, or a new message, is news.
    const key = `${namespace}/${name}/${reason}`;
    const fingerprint = `${ingress.metadata?.resourceVersion ?? ''}|${message}`;
    if (this.reported.get(key) === fingerprint) return;
    this.reported.set(key, fingerprint);

    const log = type === 'Warning' ? this.logger.warn.bind(this.logger) : this.logger.info.bind(this.logger);
    log({ ingress: `${namespace}/${name}`, reason }, message);
    if (!this.api) return;
    const now = new Date();
    this.api
      .createNamespacedEvent({
        namespace,
        body: {
          metadata: { generateName: `${name}.`, namespace },
          involvedObject: {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'Ingress',
            namespace,
            name,
            uid: ingress.metadata?.uid,
            resourceVersion: ingress.metadata?.resourceVersion,
          },
          type,
          reason,
          message,
          source: { component: COMPONENT },
          reportingComponent: COMPONENT,
          reportingInstance: hostname(),
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      })
      .catch((error: unknown) =>
        this.logger.warn({ ingress: `${namespace}/${name}`, reason, err: String(error) }, 'could not record a Kubernetes Event'),
      );
  }

  /** Forgets an Ingress that is gone, so a re-created one is reported afresh. */
  forget(namespace: string, name: string): void {
    for (const key of this.reported.keys()) {
      if (key.startsWith(`${namespace}/${name}/`)) this.reported.delete(key);
    }
  }
}
