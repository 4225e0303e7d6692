// ingress-nginx's controller metrics: the running configuration's hash, how
// its last reload went, reload counts, and the leader election gauge.
import { createHash } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Configuration } from '../model/types.js';
import type { ControllerLabels } from './controllerLabels.js';
import { METRIC_PREFIX } from './metricNames.js';

export class ControllerMetrics {
  private readonly configHash: Gauge;
  private readonly lastReloadSuccessful: Gauge;
  private readonly lastReloadSuccessfulTimestamp: Gauge;
  private readonly reloads: Counter;
  private readonly reloadErrors: Counter;
  private readonly leaderElection: Gauge;

  constructor(
    private readonly labels: ControllerLabels,
    registry: Registry,
  ) {
    const controllerLabelNames = Object.keys(labels);
    const gauge = (name: string, help: string, labelNames: string[] = controllerLabelNames): Gauge =>
      new Gauge({ name: METRIC_PREFIX + name, help, labelNames, registers: [registry] });
    const counter = (name: string, help: string): Counter =>
      new Counter({ name: METRIC_PREFIX + name, help, labelNames: controllerLabelNames, registers: [registry] });
    this.configHash = gauge('config_hash', 'Running configuration hash actually running');
    this.lastReloadSuccessful = gauge('config_last_reload_successful', 'Whether the last configuration reload attempt was successful');
    this.lastReloadSuccessfulTimestamp = gauge(
      'config_last_reload_successful_timestamp_seconds',
      'Timestamp of the last successful configuration reload.',
    );
    this.reloads = counter('success', 'Cumulative number of Ingress controller reload operations');
    this.reloadErrors = counter('errors', 'Cumulative number of Ingress controller errors during reload operations');
    this.leaderElection = gauge(
      'leader_election_status',
      "Gauge reporting status of the leader election, 0 indicates follower, 1 indicates leader. 'name' is the string used to identify the lease",
      [...controllerLabelNames, 'name'],
    );
    // Known from the start, as ingress-nginx's gauges are (they are not vectors there).
    for (const metric of [this.configHash, this.lastReloadSuccessful, this.lastReloadSuccessfulTimestamp]) metric.set(labels, 0);
  }

  /** nginx runs this configuration after a reload (or its first start). */
  reloaded(configuration: Configuration, now = Date.now()): void {
    this.reloads.inc(this.labels);
    this.lastReloadSuccessful.set(this.labels, 1);
    this.lastReloadSuccessfulTimestamp.set(this.labels, Math.floor(now / 1000));
    this.configHash.set(this.labels, configurationHash(configuration));
  }

  /** nginx refused a configuration; the previous one keeps serving. ingress-nginx then reports hash 0. */
  reloadFailed(): void {
    this.reloadErrors.inc(this.labels);
    this.lastReloadSuccessful.set(this.labels, 0);
    this.configHash.set(this.labels, 0);
  }

  /** From leader election: this pod leads, or follows, the Lease `electionId`. */
  leading(electionId: string, leader: boolean): void {
    this.leaderElection.set({ ...this.labels, name: electionId }, leader ? 1 : 0);
  }
}

/** 48 bits of the configuration's SHA-256: an integer a float64 gauge holds exactly (ingress-nginx's uint64 does not). */
export function configurationHash(configuration: Configuration): number {
  return createHash('sha256').update(JSON.stringify(configuration)).digest().readUIntBE(0, 6);
}
