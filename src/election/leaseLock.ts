// The coordination.k8s.io Lease that leader election competes for. Writes
// carry the resourceVersion that was read, so two candidates that both saw an
// expired lease cannot both win: the API server refuses the second with 409.
import { KubeApiError, type KubeHttpClient } from '../kube/kubeHttpClient.js';
import type { Lease } from '../kube/objects.js';

/** client-go's LeaderElectionRecord, as the Lease spec holds it. */
export interface LeaderRecord {
  /** Empty when the last holder released the lease. */
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

export interface ObservedLease {
  record: LeaderRecord;
  resourceVersion: string;
}

export class LeaseLock {
  private readonly collection: string;

  constructor(
    private readonly client: KubeHttpClient,
    readonly namespace: string,
    readonly name: string,
    /** Bound of every request (the renew deadline): a hung call must not outlast it. */
    private readonly timeoutMs: number,
  ) {
    this.collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  }

  /** The lease, or undefined when it does not exist yet. */
  async get(): Promise<ObservedLease | undefined> {
    try {
      return observed(
        await this.client.send<Lease>('GET', `${this.collection}/${encodeURIComponent(this.name)}`, { timeoutMs: this.timeoutMs }),
      );
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  async create(record: LeaderRecord): Promise<ObservedLease> {
    const body: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: record,
    };
    return observed(await this.client.send<Lease>('POST', this.collection, { body, timeoutMs: this.timeoutMs }));
  }

  /** Replaces the record if the lease is still at `resourceVersion` (409 otherwise). */
  async update(record: LeaderRecord, resourceVersion: string): Promise<ObservedLease> {
    const body: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace, resourceVersion },
      spec: record,
    };
    return observed(
      await this.client.send<Lease>('PUT', `${this.collection}/${encodeURIComponent(this.name)}`, { body, timeoutMs: this.timeoutMs }),
    );
  }
}

/**
 * A Lease time: RFC 3339 with exactly six fraction digits. The API server
 * parses MicroTime strictly and refuses JavaScript's millisecond form.
 */
export function microTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function observed(lease: Lease): ObservedLease {
  const spec = lease.spec ?? {};
  return {
    record: {
      holderIdentity: spec.holderIdentity ?? '',
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      acquireTime: spec.acquireTime ?? '',
      renewTime: spec.renewTime ?? '',
      leaseTransitions: spec.leaseTransitions ?? 0,
    },
    resourceVersion: lease.metadata?.resourceVersion ?? '',
  };
}
