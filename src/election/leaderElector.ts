// Leader election on a Lease with client-go's algorithm: a candidate takes the
// lease when it is free, released, or was not renewed for its duration as
// measured on this process's own clock (so clock skew between replicas does
// not matter); the leader renews it and steps down when it cannot renew within
// the renew deadline. Stopping releases the lease so a successor need not wait.
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeApiError } from '../kube/kubeHttpClient.js';
import type { Logger } from '../log/logger.js';
import { backoffDelay } from '../retry/backoff.js';
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
/**
 * A Lease this identity may not use (HTTP 403) stays so until someone changes
 * RBAC or the namespace: retry after one to two retry periods, doubling up to this.
 */
const FORBIDDEN_MAX_BACKOFF_MS = 5 * 60_000;

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
  /** Requests in a row refused with 403: retried with backoff. */
  private forbidden = 0;
  /** A 403 was reported and no write has gone through since: further ones are quiet. */
  private forbiddenReported = false;

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
      const wait =
        this.forbidden > 0
          ? backoffDelay(this.forbidden, { initialMs: 2 * retryPeriodMs, maxMs: FORBIDDEN_MAX_BACKOFF_MS })
          : retryPeriodMs * (1 + Math.random() * ACQUIRE_JITTER);
      await pause(wait, signal);
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
        this.permitted();
        return true;
      }
      this.observe(current, now);
      const holder = current.record.holderIdentity;
      const observedAt = this.observed?.at ?? now;
      // Reading it is allowed: campaign at the normal pace (a write still refused is retried every retry period).
      this.forbidden = 0;
      if (holder !== '' && holder !== identity && observedAt + current.record.leaseDurationSeconds * 1000 > now) return false;
      const record: LeaderRecord =
        holder === identity
          ? { ...ours, acquireTime: current.record.acquireTime, leaseTransitions: current.record.leaseTransitions }
          : { ...ours, leaseTransitions: current.record.leaseTransitions + 1 };
      this.observe(await lock.update(record, current.resourceVersion), now);
      this.permitted();
      return true;
    } catch (error) {
      const status = error instanceof KubeApiError ? error.statusCode : undefined;
      if (status === 403) {
        this.refused(error as KubeApiError);
        return false;
      }
      // A 409 means another candidate wrote first: expected, so quiet. Anything else (network, a restarting API server) is news.
      logger[status === 409 ? 'debug' : 'warn'](
        { err: error instanceof Error ? error.message : String(error) },
        'could not acquire or renew the lease',
      );
      return false;
    }
  }

  /** A 403: said once, with the fix; the retries that follow (with backoff) are quiet until a write goes through. */
  private refused(error: KubeApiError): void {
    const { lock, logger } = this.options;
    this.forbidden++;
    if (this.forbiddenReported) {
      logger.debug({ err: error.message, attempts: this.forbidden }, 'the lease is still forbidden');
      return;
    }
    this.forbiddenReported = true;
    logger.error(
      { lease: `${lock.namespace}/${lock.name}`, err: error.message },
      `leader election is forbidden to use the Lease ${lock.namespace}/${lock.name}: grant this identity get, create and update on ` +
        `leases (coordination.k8s.io) in namespace ${lock.namespace}, as deploy/rbac.yaml's Role does in its namespace, or run ` +
        `in the namespace that has them (POD_NAMESPACE). Until then this replica never leads (the leader writes Ingress status); ` +
        'retrying with backoff, quietly',
    );
  }

  /** A write went through: a 403 from now on is news again. */
  private permitted(): void {
    this.forbidden = 0;
    if (!this.forbiddenReported) return;
    this.forbiddenReported = false;
    this.options.logger.info('the lease is permitted now');
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
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'could not release the leader lease; it expires on its own',
      );
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
