// Keeps a sink equal to the API server's view of one resource: paged LIST,
// then WATCH from the list's resourceVersion. client-node 1.4.0's informer
// stops for good on the first error and sends no bookmarks; this one never
// stops until asked, re-lists on 410 Gone, and backs off on everything else.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../log/logger.js';
import type { KubeObject } from '../../kube/objects.js';
import { KubeApiError, type KubeHttpClient } from '../../kube/kubeHttpClient.js';
import type { ObjectSink } from '../../store/objectSink.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from '../../retry/backoff.js';
import { collectionPath, type ResourceDescriptor } from './resources.js';
import { watchEvents } from './watchEvents.js';

export interface ReflectorOptions<T extends KubeObject> {
  client: KubeHttpClient;
  resource: ResourceDescriptor;
  sink: ObjectSink<T>;
  logger: Logger;
  /** Watch one namespace only (namespaced kinds). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Items per LIST page. */
  pageSize?: number;
  /**
   * Each watch asks the server to end it after a random time in this range,
   * spreading reconnects; null leaves it to the server (--min-request-timeout).
   */
  watchTimeoutSeconds?: readonly [min: number, max: number] | null;
  /** No bytes (not even a bookmark) for this long: the connection is presumed dead. */
  inactivityTimeoutMs?: number;
  backoff?: BackoffPolicy;
  random?: () => number;
  /**
   * `--sync-period`: a full LIST this long after the last one, even when the
   * watch is healthy, so the sink is repopulated from the API server (0: never).
   */
  resyncPeriodMs?: number;
}

/** Counters that tests and metrics read to see which paths ran. */
export interface ReflectorStats {
  lists: number;
  watches: number;
  /** Times the resourceVersion was too old (410 Gone) and a full re-list followed. */
  gone: number;
  errors: number;
  events: number;
  /** The most recent failure, for diagnostics (e.g. a 403 naming a missing RBAC permission). */
  lastError: string | undefined;
}

class GoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoneError';
  }
}

interface ListPage {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: KubeObject[];
}

/** A watch that ends sooner than this without delivering anything counts as a failure (no hot loop). */
const MIN_HEALTHY_WATCH_MS = 1000;

export class Reflector<T extends KubeObject> {
  readonly stats: ReflectorStats = {
    lists: 0,
    watches: 0,
    gone: 0,
    errors: 0,
    events: 0,
    lastError: undefined,
  };
  /** Resolves once the first complete list has reached the sink. */
  readonly synced: Promise<void>;

  private resourceVersion: string | undefined;
  private listedAt = 0;
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private markSynced!: () => void;
  private readonly options: Required<Omit<ReflectorOptions<T>, 'namespace' | 'labelSelector' | 'fieldSelector'>> & ReflectorOptions<T>;

  constructor(options: ReflectorOptions<T>) {
    this.options = {
      pageSize: 500,
      watchTimeoutSeconds: [300, 600],
      inactivityTimeoutMs: 90_000,
      backoff: DEFAULT_BACKOFF,
      random: Math.random,
      resyncPeriodMs: 0,
      ...options,
    };
    this.synced = new Promise((resolve) => (this.markSynced = resolve));
  }

  start(): void {
    this.running ??= this.run();
  }

  /** One paged LIST into the sink, and no WATCH (`portico check` reads the cluster once). */
  async listOnce(): Promise<void> {
    await this.listAll();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private get log(): Logger {
    return this.options.logger;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.abort.signal.aborted) {
      try {
        if (this.resourceVersion === undefined || this.resyncDueInMs() === 0) {
          await this.listAll();
          this.markSynced();
        }
        const healthy = await this.watchOnce();
        failures = healthy ? 0 : failures + 1;
        if (!healthy) await this.pause(failures, 'watch ended early');
      } catch (error) {
        if (this.abort.signal.aborted) break;
        if (error instanceof GoneError || isGone(error)) {
          // Our resourceVersion is compacted away: only a fresh list can tell what changed.
          this.stats.gone++;
          this.resourceVersion = undefined;
          this.log.info({ kind: this.options.resource.kind, reason: describe(error) }, 'resource version expired; re-listing');
          continue;
        }
        this.stats.errors++;
        this.stats.lastError = describe(error);
        if (error instanceof KubeApiError && (error.statusCode === 401 || error.statusCode === 403)) {
          this.log.error(
            { kind: this.options.resource.kind, path: this.path, status: error.statusCode },
            `not allowed to list/watch ${this.options.resource.plural}: grant get, list and watch to Portico's identity (deploy/rbac.yaml)`,
          );
        }
        failures++;
        await this.pause(failures, this.stats.lastError);
      }
    }
  }

  /** Milliseconds until the next --sync-period LIST (at least 0), or undefined when there is none. */
  private resyncDueInMs(): number | undefined {
    const period = this.options.resyncPeriodMs;
    return period > 0 ? Math.max(0, this.listedAt + period - performance.now()) : undefined;
  }

  private async pause(failures: number, reason: string): Promise<void> {
    const delay = backoffDelay(failures, this.options.backoff, this.options.random);
    this.log.warn(
      { kind: this.options.resource.kind, attempt: failures, retryInMs: Math.round(delay), reason },
      'list/watch failed; retrying',
    );
    try {
      await sleep(delay, undefined, { signal: this.abort.signal });
    } catch {
      // stopped while waiting
    }
  }

  private baseQuery(): Record<string, string | undefined> {
    return { labelSelector: this.options.labelSelector, fieldSelector: this.options.fieldSelector };
  }

  private get path(): string {
    return collectionPath(this.options.resource, this.options.namespace);
  }

  /** Paged LIST; replaces the sink's whole content, which emits deletes for vanished objects. */
  private async listAll(): Promise<void> {
    this.stats.lists++;
    const items: T[] = [];
    let continueToken: string | undefined;
    let resourceVersion: string | undefined;
    let limit: number | undefined = this.options.pageSize;
    do {
      let page: ListPage;
      try {
        const response = await this.options.client.get(
          this.path,
          { ...this.baseQuery(), limit, continue: continueToken },
          { signal: this.abort.signal, inactivityTimeoutMs: this.options.inactivityTimeoutMs },
        );
        page = (await response.body.json()) as ListPage;
      } catch (error) {
        if (continueToken !== undefined && isGone(error)) {
          // The continue token outlived etcd's compaction window: start over in one page.
          items.length = 0;
          continueToken = undefined;
          limit = undefined;
          continue;
        }
        throw error;
      }
      for (const item of page.items ?? []) items.push(this.withTypeMeta(item));
      continueToken = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion;
    } while (continueToken !== undefined);
    this.options.sink.replace(items);
    this.resourceVersion = resourceVersion;
    this.listedAt = performance.now();
    this.log.debug({ kind: this.options.resource.kind, count: items.length, resourceVersion }, 'listed');
  }

  /** One WATCH until the server ends it; returns whether it was healthy (lasted, or delivered events). */
  private async watchOnce(): Promise<boolean> {
    this.stats.watches++;
    const range = this.options.watchTimeoutSeconds;
    const spread = range ? Math.round(range[0] + this.options.random() * (range[1] - range[0])) : undefined;
    // The server ends the watch when the next resync is due (whole seconds, at least 1).
    const resyncIn = this.resyncDueInMs();
    const untilResync = resyncIn === undefined ? undefined : Math.max(1, Math.ceil(resyncIn / 1000));
    const timeoutSeconds = spread === undefined || untilResync === undefined ? (spread ?? untilResync) : Math.min(spread, untilResync);
    const started = Date.now();
    let delivered = 0;
    const response = await this.options.client.get(
      this.path,
      {
        ...this.baseQuery(),
        watch: 'true',
        allowWatchBookmarks: 'true',
        resourceVersion: this.resourceVersion,
        timeoutSeconds,
      },
      { signal: this.abort.signal, inactivityTimeoutMs: this.options.inactivityTimeoutMs },
    );
    for await (const event of watchEvents(response.body)) {
      delivered++;
      switch (event.type) {
        case 'ADDED':
        case 'MODIFIED':
          this.stats.events++;
          this.options.sink.upsert(this.withTypeMeta(event.object));
          break;
        case 'DELETED':
          this.stats.events++;
          this.options.sink.remove(this.withTypeMeta(event.object));
          break;
        case 'BOOKMARK':
          break;
        case 'ERROR': {
          const status = event.object;
          const message = `${status.reason ?? 'Error'}: ${status.message ?? ''}`;
          if (status.code === 410) throw new GoneError(message);
          throw new Error(`watch error ${status.code ?? '?'}: ${message}`);
        }
      }
      const resourceVersion = event.object.metadata?.resourceVersion;
      if (resourceVersion) this.resourceVersion = resourceVersion;
    }
    return delivered > 0 || Date.now() - started >= MIN_HEALTHY_WATCH_MS;
  }

  private withTypeMeta(object: KubeObject): T {
    // List items carry no kind/apiVersion; stamp them so every object in the store is self-describing.
    object.kind = this.options.resource.kind;
    object.apiVersion = this.options.resource.apiVersion;
    return object as T;
  }
}

function isGone(error: unknown): boolean {
  return error instanceof KubeApiError && error.statusCode === 410;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
