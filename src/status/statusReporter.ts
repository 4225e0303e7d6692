// Ingress status as a leader's duty: every replica campaigns for the Lease
// `--election-id`; only the leader writes status. With
// `--disable-leader-election` the process acts as the only replica and writes
// it itself. At shutdown the status is cleared if this was the last replica
// (`--update-status-on-shutdown`), then the lease is released.
import { electionTimings, LeaderElector } from '../election/leaderElector.js';
import { LeaseLock } from '../election/leaseLock.js';
import type { ControllerIdentity } from '../kube/controllerIdentity.js';
import type { KubeHttpClient } from '../kube/kubeHttpClient.js';
import type { Ingress } from '../kube/objects.js';
import type { Logger } from '../log/logger.js';
import { ControllerReplicas } from './controllerReplicas.js';
import { IngressStatusSync } from './ingressStatusSync.js';
import { runningAddresses, type AddressSettings } from './runningAddresses.js';

export interface StatusSettings extends AddressSettings {
  /** `--update-status`. */
  updateStatus: boolean;
  /** `--update-status-on-shutdown`. */
  updateStatusOnShutdown: boolean;
  /** `--status-update-interval`, in seconds. */
  statusUpdateInterval: number;
  /** `--election-id`. */
  electionId: string;
  /** `--election-ttl`, in milliseconds. */
  electionTtl: number;
  /** `--disable-leader-election`. */
  disableLeaderElection: boolean;
}

export interface StatusReporterOptions {
  client: KubeHttpClient;
  identity: ControllerIdentity;
  /** The store's current version of an Ingress. */
  ingress: (key: string) => Ingress | undefined;
  settings: StatusSettings;
  logger: Logger;
  /** Told when this replica starts or stops leading the Lease `electionId` (the leader election metric). */
  onLeadership?: (electionId: string, leading: boolean) => void;
}

export class StatusReporter {
  private readonly sync: IngressStatusSync;
  private readonly elector: LeaderElector | undefined;
  private readonly stopStatus = new AbortController();
  private readonly stopElection = new AbortController();
  private leading: Promise<void> = Promise.resolve();
  private campaign: Promise<void> = Promise.resolve();

  constructor(private readonly options: StatusReporterOptions) {
    const { client, identity, settings, logger } = options;
    const replicas = new ControllerReplicas(client, identity);
    this.sync = new IngressStatusSync({
      client,
      ingress: options.ingress,
      addresses: () => runningAddresses(client, replicas, settings),
      replicas,
      intervalMs: settings.statusUpdateInterval * 1000,
      logger: logger.child({ component: 'status' }),
    });
    if (settings.disableLeaderElection) return;
    const timings = electionTimings(settings.electionTtl);
    this.elector = new LeaderElector({
      lock: new LeaseLock(client, identity.namespace, settings.electionId, timings.renewDeadlineMs),
      identity: identity.identity,
      timings,
      callbacks: {
        onStartedLeading: (leadership) => {
          options.onLeadership?.(settings.electionId, true);
          this.lead(leadership);
        },
        onStoppedLeading: () => options.onLeadership?.(settings.electionId, false),
      },
      logger: logger.child({ component: 'election' }),
    });
  }

  start(): void {
    const { settings, identity, logger } = this.options;
    if (!settings.updateStatus) logger.warn('Ingress status updates are disabled (--update-status=false)');
    if (this.elector && identity.namespaceFrom !== 'POD_NAMESPACE') {
      logger.warn(
        { lease: `${identity.namespace}/${settings.electionId}` },
        `POD_NAMESPACE is not set: the leader-election Lease is ${identity.namespace}/${settings.electionId} ` +
          `(${identity.namespaceFrom}). In a pod, set POD_NAMESPACE from the downward API (fieldRef metadata.namespace, as ` +
          'deploy/deployment.yaml does); elsewhere set it to a namespace where this identity may get, create and update Leases ' +
          '(deploy/rbac.yaml grants them in portico), or pass --disable-leader-election',
      );
    }
    if (this.elector) this.campaign = this.elector.run(this.stopElection.signal);
    else this.lead(this.stopStatus.signal);
  }

  /** The Ingresses nginx serves now (`namespace/name`). */
  setServed(keys: ReadonlySet<string>): void {
    this.sync.setServed(keys);
  }

  async stop(): Promise<void> {
    this.stopStatus.abort();
    await this.leading;
    const { updateStatus, updateStatusOnShutdown } = this.options.settings;
    if (updateStatus && updateStatusOnShutdown) await this.sync.clearIfLastReplica();
    this.stopElection.abort();
    await this.campaign;
  }

  private lead(leadership: AbortSignal): void {
    if (!this.options.settings.updateStatus) return;
    this.leading = this.sync.lead(AbortSignal.any([leadership, this.stopStatus.signal]));
  }
}
