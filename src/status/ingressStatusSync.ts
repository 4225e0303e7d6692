// Keeps `.status.loadBalancer.ingress` of the Ingresses nginx serves equal to
// the controller's addresses. Only the leader runs it; an Ingress is written
// only when its status differs, so a steady state costs no API writes.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeHttpClient } from '../kube/kubeHttpClient.js';
import type { Ingress } from '../kube/objects.js';
import type { Logger } from '../log/logger.js';
import type { ControllerReplicas } from './controllerReplicas.js';
import { sameAddresses, type LoadBalancerAddress } from './loadBalancerAddresses.js';
import type { RunningAddresses } from './runningAddresses.js';

export interface IngressStatusSyncOptions {
  client: KubeHttpClient;
  /** The Ingress as last seen by the store (`namespace/name`), with its current status. */
  ingress(key: string): Ingress | undefined;
  addresses(): Promise<RunningAddresses>;
  replicas: ControllerReplicas;
  /** `--status-update-interval`. */
  intervalMs: number;
  logger: Logger;
}

/** As ingress-nginx's worker pool: at most this many status writes at once. */
const PARALLEL_WRITES = 10;

export class IngressStatusSync {
  private served: ReadonlySet<string> = new Set();
  /** The served set changed since the last round began. */
  private dirty = false;
  private wake: (() => void) | undefined;

  constructor(private readonly options: IngressStatusSyncOptions) {}

  /** The Ingresses (`namespace/name`) in the configuration nginx runs; a leader writes new ones at once. */
  setServed(keys: ReadonlySet<string>): void {
    const changed = keys.size !== this.served.size || [...keys].some((key) => !this.served.has(key));
    this.served = keys;
    if (!changed) return;
    this.dirty = true;
    this.wake?.();
  }

  /** Writes the status now, every interval and whenever the served set changes, until `leadership` aborts. */
  async lead(leadership: AbortSignal): Promise<void> {
    while (!leadership.aborted) {
      this.dirty = false;
      try {
        await this.write((await this.options.addresses()).addresses);
      } catch (error) {
        this.options.logger.warn({ err: message(error) }, 'could not update Ingress status');
      }
      await this.nextRound(leadership);
    }
  }

  /**
   * `--update-status-on-shutdown`: empties the status when no other replica
   * remains to keep it (ingress-nginx's checks: several node addresses mean
   * replicas on other nodes; more than one pod with this pod's labels means
   * another replica).
   */
  async clearIfLastReplica(): Promise<void> {
    const { logger } = this.options;
    try {
      const { addresses, fromNodes } = await this.options.addresses();
      if (fromNodes && addresses.length > 1) {
        logger.info({ addresses: addresses.length }, 'leaving Ingress status to the next leader');
        return;
      }
      const pods = await this.options.replicas.pods();
      if (pods !== undefined && pods.length > 1) {
        logger.info({ replicas: pods.length }, 'other controller replicas run; Ingress status kept');
        return;
      }
      logger.info({ ingresses: this.served.size }, 'last replica: removing the address from Ingress status');
      await this.write([]);
    } catch (error) {
      logger.warn({ err: message(error) }, 'could not clear Ingress status at shutdown');
    }
  }

  private async write(desired: readonly LoadBalancerAddress[]): Promise<void> {
    const stale = [...this.served]
      .map((key) => this.options.ingress(key))
      .filter(
        (ingress): ingress is Ingress => ingress !== undefined && !sameAddresses(ingress.status?.loadBalancer?.ingress ?? [], desired),
      );
    for (let i = 0; i < stale.length; i += PARALLEL_WRITES) {
      await Promise.all(stale.slice(i, i + PARALLEL_WRITES).map((ingress) => this.patch(ingress, desired)));
    }
  }

  private async patch(ingress: Ingress, desired: readonly LoadBalancerAddress[]): Promise<void> {
    const namespace = ingress.metadata?.namespace ?? '';
    const name = ingress.metadata?.name ?? '';
    const log = { ingress: `${namespace}/${name}`, from: ingress.status?.loadBalancer?.ingress ?? [], to: desired };
    try {
      // A merge patch replaces the whole list and needs no read-modify-write round.
      await this.options.client.send(
        'PATCH',
        `/apis/networking.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/ingresses/${encodeURIComponent(name)}/status`,
        { body: { status: { loadBalancer: { ingress: desired } } }, contentType: 'application/merge-patch+json' },
      );
      this.options.logger.info(log, 'updated Ingress status');
    } catch (error) {
      this.options.logger.warn({ ...log, err: message(error) }, 'could not update Ingress status');
    }
  }

  private async nextRound(leadership: AbortSignal): Promise<void> {
    if (this.dirty) return;
    const woken = new AbortController();
    this.wake = () => woken.abort();
    await sleep(this.options.intervalMs, undefined, { signal: AbortSignal.any([leadership, woken.signal]) }).catch(() => undefined);
    this.wake = undefined;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
