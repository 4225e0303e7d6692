// Leader election on a Lease with client-go's algorithm: a candidate takes the
// lease when it is free, released, or was not renewed for its duration as
// measured on this process's own clock (so clock skew between replicas does
// not matter); the leader renews it and steps down when it cannot renew within
// the renew deadline. Stopping releases the lease so a successor need not wait.
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeApiError } from '../kube/kubeHttpClient.js';
import type { Logger } from '../log/logger.js';
import { microTime, type LeaderRecord, type LeaseLock, type ObservedLease } from './leaseLock.js';

export interface ElectionTimings {
  /** How long a lease not renewed keeps others out. */
  leaseDurationMs: number;
  /** How long the leader keeps trying to renew before it steps down. */
  renewDeadlineMs: number;
  /** Pause between attempts (jittered while acquiring). */
  retryPeriodMs: number;
}

/** ingress-nginx's derivation from `--election-ttl`: renew within ttl/2, retry every ttl/4. */
export function electionTimings(ttlMs: number): ElectionTimings {
  if (!(ttlMs >= 1000)) throw new Error(`--election-ttl must be at least 1s (got ${ttlMs} ms)`);
  return { leaseDurationMs: ttlMs, renewDeadlineMs: ttlMs / 2, retryPeriodMs: ttlMs / 4 };
}

/** client-go's JitterFactor while acquiring: wait retry × [1, 2.2). */
const ACQUIRE_JITTER = 1.2;

export interface LeaderCallbacks {
  /** `leadership` aborts when this process stops leading. */
  onStartedLeading(leadership: AbortSignal): void;
  onStoppedLeading(): void;
}

export interface LeaderElectorOptions {
  lock: LeaseLock;
  identity: string;
  timings: ElectionTimings;
  callbacks: LeaderCallbacks;
  logger: Logger;
}

export class LeaderElector {
  /** The last record seen and when this process first saw it. */
  private observed: (ObservedLease & { at: number }) | undefined;
  private leading = false;

  constructor(private readonly options: LeaderElectorOptions) {}

  isLeader(): boolean {
    return this.leading;
  }

  /** Campaigns, leads, and campaigns again after losing the lease, until `signal` aborts; then releases it. */
  async run(signal: AbortSignal): Promise<void> {
    const { callbacks, logger, lock, identity } = this.options;
    logger.info({ lease: `${lock.namespace}/${lock.name}`, identity }, 'campaigning for leadership');
    while (await this.acquire(signal)) {
      const leadership = new AbortController();
      this.leading = true;
      logger.info({ identity }, 'started leading');
      callbacks.onStartedLeading(leadership.signal);
      await this.renewWhileLeading(signal);
      leadership.abort();
      this.leading = false;
      callbacks.onStoppedLeading();
      if (signal.aborted) {
        await this.release();
        return;
      }
      logger.warn({ identity }, 'stopped leading: the lease could not be renewed in time');
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    const { retryPeriodMs } = this.options.timings;
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew()) return true;
      await pause(retryPeriodMs * (1 + Math.random() * ACQUIRE_JITTER), signal);
    }
    return false;
  }

  /** Returns when a renewal round failed for the whole renew deadline, or on abort. */
  private async renewWhileLeading(signal: AbortSignal): Promise<void> {
    const { retryPeriodMs, renewDeadlineMs } = this.options.timings;
    while (!signal.aborted) {
      const deadline = Date.now() + renewDeadlineMs;
      let renewed = false;
      while (!signal.aborted && !renewed && Date.now() < deadline) {
        renewed = await this.tryAcquireOrRenew();
        if (!renewed) await pause(Math.min(retryPeriodMs, Math.max(0, deadline - Date.now())), signal);
      }
      if (!renewed) return;
      await pause(retryPeriodMs, signal);
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { lock, identity, timings, logger } = this.options;
    const now = Date.now();
    const ours: LeaderRecord = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(timings.leaseDurationMs / 1000)),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    try {
      const current = await lock.get();
      if (!current) {
        this.observe(await lock.create(ours), now);
        return true;
      }
      this.observe(current, now);
      const holder = current.record.holderIdentity;
      const observedAt = this.observed?.at ?? now;
      if (holder !== '' && holder !== identity && observedAt + current.record.leaseDurationSeconds * 1000 > now) return false;
      const record: LeaderRecord =
        holder === identity
          ? { ...ours, acquireTime: current.record.acquireTime, leaseTransitions: current.record.leaseTransitions }
          : { ...ours, leaseTransitions: current.record.leaseTransitions + 1 };
      this.observe(await lock.update(record, current.resourceVersion), now);
      return true;
    } catch (error) {
      // A 409 means another candidate wrote first: expected, so quiet. Anything else (RBAC, network) is news.
      const conflict = error instanceof KubeApiError && error.statusCode === 409;
      logger[conflict ? 'debug' : 'warn']({ err: error instanceof Error ? error.message : String(error) }, 'could not acquire or renew the lease');
      return false;
    }
  }

  /** Remembers a record; a new holder is reported once. */
  private observe(lease: ObservedLease, now: number): void {
    const previous = this.observed;
    if (previous && sameRecord(previous.record, lease.record)) {
      this.observed = { ...lease, at: previous.at };
      return;
    }
    this.observed = { ...lease, at: now };
    const holder = lease.record.holderIdentity;
    if (holder !== '' && holder !== previous?.record.holderIdentity) this.options.logger.info({ leader: holder }, 'new leader elected');
  }

  /** As client-go's ReleaseOnCancel: an empty holder lets the next candidate take over at once. */
  private async release(): Promise<void> {
    const { lock, identity, logger } = this.options;
    const last = this.observed;
    if (!last || last.record.holderIdentity !== identity) return;
    const now = microTime(Date.now());
    try {
      await lock.update(
        { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: last.record.leaseTransitions },
        last.resourceVersion,
      );
      logger.info({ identity }, 'released the leader lease');
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not release the leader lease; it expires on its own');
    }
  }
}

function sameRecord(a: LeaderRecord, b: LeaderRecord): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.renewTime === b.renewTime &&
    a.acquireTime === b.acquireTime &&
    a.leaseTransitions === b.leaseTransitions &&
    a.leaseDurationSeconds === b.leaseDurationSeconds
  );
}

/** Sleeps, or returns early when the signal aborts. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}
