// Kubernetes Events: how a user learns, with `kubectl describe ingress` (or
// `describe pod` for the controller's own pod), that an Ingress was synced or
// refused, that a certificate does not fit, or that nginx reloaded. Every
// Event is also logged. Writes go out one at a time in the background,
// through client-go's spam filter and deduplication (eventCorrelator.ts).
import type { CoreV1Event, V1ObjectReference } from '@kubernetes/client-node';
import { hostname } from 'node:os';
import type { Logger } from '../../log/logger.js';
import type { ConfigMap, Ingress } from '../../kube/objects.js';
import { CLIENT_GO_EVENT_LIMITS, EventCorrelator, type EventLimits } from './eventCorrelator.js';
import type { EventSink } from './eventSink.js';

export type EventType = 'Normal' | 'Warning';

export interface IngressEventRecorder {
  /** Records an Event on the Ingress, once per Ingress version, reason and message. */
  record(ingress: Ingress, type: EventType, reason: string, message: string): void;
  /** Forgets an Ingress that is gone, so a re-created one is reported afresh. */
  forget(namespace: string, name: string): void;
}

export interface ControllerEventRecorder {
  /** Records an Event on the controller's own pod (when it is known), every time. */
  recordOnPod(type: EventType, reason: string, message: string): void;
  /** Records an Event on the global ConfigMap (its settings were refused). */
  recordOnConfigMap(configMap: ConfigMap, type: EventType, reason: string, message: string): void;
}

/** The controller's pod, from POD_NAME and POD_NAMESPACE (uid when it could be read). */
export interface PodReference {
  namespace: string;
  name: string;
  uid?: string;
}

export interface EventRecorderOptions {
  logger: Logger;
  /** Without one, Events are only logged (manifest mode). */
  sink?: EventSink;
  pod?: PodReference;
  limits?: EventLimits;
  /**
   * Beyond this many writes waiting, plus one for each Ingress with Events, new
   * Events are dropped (default 1000, as client-go's broadcaster queue).
   */
  maxQueuedWrites?: number;
}

const COMPONENT = 'portico';
// events.k8s.io caps a note at 1 kB; nginx -t output can be longer.
const MAX_MESSAGE_LENGTH = 1024;

export class EventRecorder implements IngressEventRecorder, ControllerEventRecorder {
  /** What was recorded on each Ingress (`namespace/name`) for its current version. */
  private readonly reported = new Map<string, { version: string; events: Set<string> }>();
  private readonly correlator: EventCorrelator;
  private readonly instance = hostname();
  private writes: Promise<void> = Promise.resolve();
  private queued = 0;
  /** Events not queued since the queue was last full. */
  private dropped = 0;

  constructor(private readonly options: EventRecorderOptions) {
    this.correlator = new EventCorrelator(options.limits ?? CLIENT_GO_EVENT_LIMITS);
  }

  record(ingress: Ingress, type: EventType, reason: string, message: string): void {
    const namespace = ingress.metadata?.namespace ?? 'default';
    const name = ingress.metadata?.name ?? '';
    // A sync reports the same problems every time: only a new version, or a new message, is news.
    const key = `${namespace}/${name}`;
    const version = ingress.metadata?.resourceVersion ?? '';
    let reported = this.reported.get(key);
    if (reported?.version !== version) {
      reported = { version, events: new Set() };
      this.reported.set(key, reported);
    }
    const event = `${type}/${reason}/${message}`;
    if (reported.events.has(event)) return;
    reported.events.add(event);
    this.emit(
      {
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
    );
  }

  forget(namespace: string, name: string): void {
    this.reported.delete(`${namespace}/${name}`);
  }

  recordOnPod(type: EventType, reason: string, message: string): void {
    const pod = this.options.pod;
    if (!pod) {
      this.log(type, { reason }, message);
      return;
    }
    this.emit({ apiVersion: 'v1', kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid }, type, reason, message);
  }

  recordOnConfigMap(configMap: ConfigMap, type: EventType, reason: string, message: string): void {
    const { namespace, name = '', uid, resourceVersion } = configMap.metadata ?? {};
    this.emit({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name, uid, resourceVersion }, type, reason, message);
  }

  /** Resolves once every Event recorded so far has been written (or has failed), or after `timeoutMs`. */
  async flush(timeoutMs = Infinity): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      if (timeoutMs !== Infinity) timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([this.writes, timeout]);
    clearTimeout(timer);
  }

  private emit(object: V1ObjectReference, type: EventType, reason: string, message: string): void {
    const objectKey = `${object.kind}/${object.namespace}/${object.name}`;
    this.log(type, { [(object.kind ?? '').toLowerCase()]: `${object.namespace}/${object.name}`, reason }, message);
    const sink = this.options.sink;
    if (!sink) return;
    // Sized for the cluster: at start every Ingress gets its Sync Event at once (so does ingress-nginx's),
    // and each Ingress gets an Event once per version, reason and message, so in the normal case a few wait
    // per Ingress. The bound is for an API server that is slow or away, so that memory stays bounded.
    if (this.queued >= (this.options.maxQueuedWrites ?? 1000) + this.reported.size) {
      if (this.dropped++ === 0)
        this.options.logger.warn({ waiting: this.queued }, 'too many Kubernetes Events waiting to be written; dropping new ones');
      return;
    }
    if (this.dropped > 0) {
      this.options.logger.warn({ dropped: this.dropped }, 'Kubernetes Events were dropped while too many waited to be written');
      this.dropped = 0;
    }
    this.queued++;
    const write = async (): Promise<void> => {
      const text = message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 3)}...` : message;
      const eventKey = `${objectKey}/${object.uid ?? ''}/${type}/${reason}/${text}`;
      const now = new Date();
      const correlation = this.correlator.observe(objectKey, eventKey, now.getTime());
      if (correlation.action === 'drop') {
        this.options.logger.debug({ object: objectKey, reason }, 'Kubernetes Event dropped by the spam filter');
        return;
      }
      if (correlation.action === 'patch') {
        const patched = await sink.patchCount(correlation.namespace, correlation.name, correlation.count, now);
        if (patched === 'patched') return;
      }
      const name = await sink.create(this.event(object, type, reason, text, now));
      this.correlator.created(eventKey, object.namespace ?? 'default', name);
    };
    this.writes = this.writes
      .then(write)
      .catch((error: unknown) => {
        this.options.logger.warn({ object: objectKey, reason, err: String(error) }, 'could not record a Kubernetes Event');
      })
      .finally(() => this.queued--);
  }

  private event(object: V1ObjectReference, type: EventType, reason: string, message: string, now: Date): CoreV1Event {
    return {
      metadata: { generateName: `${object.name}.`, namespace: object.namespace },
      involvedObject: object,
      type,
      reason,
      message,
      source: { component: COMPONENT },
      reportingComponent: COMPONENT,
      reportingInstance: this.instance,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
  }

  private log(type: EventType, fields: Record<string, string>, message: string): void {
    if (type === 'Warning') this.options.logger.warn(fields, message);
    else this.options.logger.info(fields, message);
  }
}
