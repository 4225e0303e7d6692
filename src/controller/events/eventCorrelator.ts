// What client-go's EventCorrelator does, so a busy controller cannot flood
// etcd with Events:
// - a spam filter: a token bucket per involved object (client-go: 25 Events
//   at once, then one per 5 minutes); what it refuses is dropped (and logged
//   by the recorder);
// - deduplication: an Event identical to one already written (same object,
//   type, reason and message) increments that Event's count and last
//   timestamp instead of creating another object, which `kubectl describe`
//   shows as "(x5 over 10m)".
// client-go also merges >10 *similar* Events (same reason, different
// messages) into one "combined" Event; Portico does not: its messages are
// few and fixed per problem, and the spam filter bounds them anyway.
// Pure: time comes in as arguments.

export interface EventLimits {
  /** Events one object may receive at once. */
  burst: number;
  /** One more token per this many milliseconds. */
  refillMs: number;
  /** Objects and distinct Events remembered; the least recently used are forgotten first. */
  cacheSize: number;
}

export const CLIENT_GO_EVENT_LIMITS: EventLimits = { burst: 25, refillMs: 5 * 60_000, cacheSize: 4096 };

export type Correlation =
  | { readonly action: 'create' }
  | { readonly action: 'patch'; readonly namespace: string; readonly name: string; readonly count: number }
  | { readonly action: 'drop' };

interface Bucket {
  tokens: number;
  at: number;
}

interface Written {
  namespace: string;
  name: string;
  count: number;
}

export class EventCorrelator {
  private readonly buckets: BoundedMap<Bucket>;
  private readonly written: BoundedMap<Written>;

  constructor(private readonly limits: EventLimits = CLIENT_GO_EVENT_LIMITS) {
    this.buckets = new BoundedMap(limits.cacheSize);
    this.written = new BoundedMap(limits.cacheSize);
  }

  /** Decides what to do with an Event about `objectKey` whose identity is `eventKey`. */
  observe(objectKey: string, eventKey: string, now: number): Correlation {
    if (!this.takeToken(objectKey, now)) return { action: 'drop' };
    const previous = this.written.get(eventKey);
    if (!previous) return { action: 'create' };
    previous.count++;
    return { action: 'patch', namespace: previous.namespace, name: previous.name, count: previous.count };
  }

  /** Records the Event the API server created for `eventKey` (count 1). */
  created(eventKey: string, namespace: string, name: string): void {
    this.written.set(eventKey, { namespace, name, count: 1 });
  }

  private takeToken(objectKey: string, now: number): boolean {
    const bucket = this.buckets.get(objectKey) ?? { tokens: this.limits.burst, at: now };
    const refilled = Math.floor((now - bucket.at) / this.limits.refillMs);
    if (refilled > 0) {
      bucket.tokens = Math.min(this.limits.burst, bucket.tokens + refilled);
      bucket.at += refilled * this.limits.refillMs;
    }
    if (bucket.tokens >= this.limits.burst) bucket.at = now; // a full bucket does not bank time
    this.buckets.set(objectKey, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    return true;
  }
}

/** A Map that forgets its least recently used entry beyond `capacity`. */
class BoundedMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}
