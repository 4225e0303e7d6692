// The controller's loop: coalesced store changes → accepted Ingresses →
// model → data plane. Problems reach the user as log lines and Kubernetes
// Events; a configuration nginx refuses never replaces the running one, and
// the object nginx traced the refusal to is left out so the rest is applied
// (refusalContainment.ts).
import { availableParallelism } from 'node:os';
import type { Logger } from '../log/logger.js';
import { objectKey, type ConfigMap, type Ingress } from '../kube/objects.js';
import { buildConfiguration, type ModelInput } from '../model/buildConfiguration.js';
import type { EndpointPolicy } from '../model/backends.js';
import { defaultLocationAnnotations } from '../model/annotations/parseIngressAnnotations.js';
import { ModelMemo } from '../model/memo/modelMemo.js';
import { DEFAULT_SETTINGS, type GlobalSettings } from '../model/settings/globalSettings.js';
import { classifyIgnoredKey } from '../model/settings/ingressNginxConfigMapKeys.js';
import { parseGlobalSettings, type GlobalSettingsParseResult } from '../model/settings/parseGlobalSettings.js';
import { globalHeaderConfigMaps } from '../model/globalHeaders.js';
import type { Configuration, LocationAnnotations } from '../model/types.js';
import type { Store } from '../store/store.js';
import type { ApplyOutcome, ApplyResult, Applying, DataPlane, Refused } from '../dataplane/dataPlane.js';
import type { ControllerEventRecorder, IngressEventRecorder } from './events/eventRecorder.js';
import { IngressAcceptance } from './ingressAcceptance.js';
import { RefusalContainment, type Attempt } from './refusalContainment.js';
import { SyncRateLimiter } from './syncRateLimiter.js';
import { ConfigMapProblemEvents } from './configMapProblemEvents.js';
import { sameJson } from './sameJson.js';
import type { StreamServiceSources } from '../model/stream/streamServices.js';

/** Told what every configuration handed to the data plane became (the metrics). */
export interface SyncObserver {
  /** Its live state is in nginx: its hosts may answer before its reload. */
  live(configuration: Configuration): void;
  /** nginx loaded it, or refused it. */
  applied(configuration: Configuration, result: ApplyResult): void;
}

export interface SyncLoopOptions {
  store: Store;
  dataPlane: DataPlane;
  events: IngressEventRecorder & ControllerEventRecorder;
  logger: Logger;
  /** false with `--disable-sync-events`: "Scheduled for sync" is only logged, not recorded on the Ingress. */
  syncEvents?: boolean;
  annotationsPrefix: string;
  /** `--deep-inspect` (default true). */
  deepInspect?: boolean;
  /** `--configmap` (`namespace/name`). */
  configMap?: string;
  defaultBackendService?: string;
  defaultSslCertificate?: string;
  /** Portico's own addresses and ports (never a backend), and `--disable-svc-external-name`. */
  endpoints: EndpointPolicy;
  /** `--tcp-services-configmap`, `--udp-services-configmap`. */
  streamServices?: StreamServiceSources;
  /** `--enable-ssl-passthrough`. */
  sslPassthrough?: boolean;
  /** `--sync-rate-limit`: full syncs per second at most. */
  syncRateLimit: number;
  /** Told the Ingresses (`namespace/name`) nginx serves, whenever that set may have changed. */
  onServed?: (ingresses: ReadonlySet<string>) => void;
  observer?: SyncObserver;
}

export interface SyncReport {
  /** The configuration handed to the data plane (undefined when nothing changed). */
  applied: Configuration | undefined;
  outcome: ApplyOutcome['outcome'] | 'skipped';
  /** nginx refused it, and an object it was traced to is now left out: another sync should follow at once. */
  contained?: boolean;
}

/** When a sync started (performance.now()), and how long its model and its live push took, ms. */
interface SyncTiming {
  started: number;
  modelMs: number;
  liveMs: number;
}

export class SyncLoop {
  private readonly acceptance: IngressAcceptance;
  private readonly containment = new RefusalContainment();
  private readonly limiter: SyncRateLimiter;
  private readonly configMapProblems: ConfigMapProblemEvents;
  /** A containment asks for a sync without waiting for a store change. */
  private resyncWanted = false;
  private wakeForResync: (() => void) | undefined;
  private settingsSource: ConfigMap | undefined | null = null;
  private settings: GlobalSettings = DEFAULT_SETTINGS;
  private defaults: LocationAnnotations | undefined;
  /** The configuration nginx runs, and the newest handed to the data plane with its settling (compared as JSON: sameJson.ts). */
  private running: Configuration | undefined;
  private submitted: Configuration | undefined;
  private submittedSettled: Promise<unknown> = Promise.resolve();
  /** Every served Ingress at the last sync; the store replaces an object that changes, so identity tells a new version. */
  private readonly syncedIngresses = new Map<string, Ingress>();
  /** What the last sync's model run keeps for the next: a change recomputes only what it touches (memo/modelMemo.ts). */
  private readonly modelMemo = new ModelMemo();
  /** The model's input at the last sync: the admission webhook checks new Ingresses against it. */
  lastInput: ModelInput | undefined;
  syncs = 0;

  constructor(private readonly options: SyncLoopOptions) {
    this.acceptance = new IngressAcceptance(options.annotationsPrefix, options.deepInspect);
    this.limiter = new SyncRateLimiter(options.syncRateLimit);
    this.configMapProblems = new ConfigMapProblemEvents(options.store, options.events);
  }

  /**
   * Syncs on every batch of store changes until the signal aborts. A sync
   * holds the loop until its live state is in nginx, not until its reload is
   * done: a change during a long reload goes live at once.
   */
  async run(signal: AbortSignal): Promise<void> {
    const settling = new Set<Promise<SyncReport>>();
    let change = this.options.store.changes.next();
    // One listener for the whole run: one per pass would pile up on the signal.
    const stopped = aborted(signal);
    while (!signal.aborted) {
      const keys = await Promise.race([change, this.resyncRequested(), stopped]);
      if (signal.aborted) break;
      if (keys === 'resync') {
        this.options.logger.debug('syncing without what nginx refused');
      } else {
        this.options.logger.debug({ changed: keys?.size }, 'store changed');
        change = this.options.store.changes.next();
      }
      try {
        await this.limiter.ready(signal);
      } catch {
        break;
      }
      this.resyncWanted = false;
      const { settled, skipped } = await this.begin();
      if (!skipped) this.limiter.take();
      settling.add(settled);
      settled
        .catch((error: unknown) =>
          this.options.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'finishing a sync failed'),
        )
        .finally(() => settling.delete(settled));
    }
    await Promise.allSettled(settling); // a reload under way finishes
  }

  /**
   * One full sync from the store as it is now, until nginx runs it; while
   * nginx refuses objects it can be traced to, again without them (so a start
   * never fails because of one object).
   */
  async sync(): Promise<SyncReport> {
    let report = await (await this.begin()).settled;
    while (report.contained === true) report = await (await this.begin()).settled;
    this.resyncWanted = false;
    return report;
  }

  private requestResync(): void {
    this.resyncWanted = true;
    this.wakeForResync?.();
  }

  private resyncRequested(): Promise<'resync'> {
    return new Promise((resolve) => {
      if (this.resyncWanted) resolve('resync');
      else this.wakeForResync = () => resolve('resync');
    });
  }

  /** Builds the model and hands it to the data plane: resolves once the live state is pushed, `settled` once nginx runs it. */
  private async begin(): Promise<{ skipped: boolean; settled: Promise<SyncReport> }> {
    const started = performance.now();
    this.syncs++;
    const { store, logger } = this.options;
    const settings = this.currentSettings();
    const settingsVersion = { source: this.settingsSource ?? undefined, settings };
    const ingresses = store.ingresses();
    this.reportScheduled(ingresses);
    const acceptance = this.acceptance.update(ingresses, settings);
    for (const refusal of acceptance.refused) {
      const fallback = refusal.servingPrevious ? 'the last valid version keeps serving' : 'the Ingress is not served';
      this.options.events.record(refusal.ingress, 'Warning', 'Rejected', `${refusal.errors.join('; ')} (${fallback})`);
    }
    for (const { ingress, messages } of acceptance.warnings) {
      this.options.events.record(ingress, 'Warning', 'AnnotationWarning', messages.join('; '));
    }

    this.lastInput = {
      ingresses: acceptance.accepted,
      lookup: store,
      settings,
      defaultAnnotations: this.defaultAnnotations(settings),
      defaultBackendService: this.options.defaultBackendService,
      defaultSslCertificate: this.options.defaultSslCertificate,
      endpoints: this.options.endpoints,
      streamServices: this.options.streamServices,
      sslPassthrough: this.options.sslPassthrough,
    };
    const result = buildConfiguration(this.lastInput, this.modelMemo);
    for (const problem of result.problems) {
      const ingress = store.ingress(`${problem.ingress.namespace}/${problem.ingress.name}`);
      if (ingress)
        this.options.events.record(ingress, problem.severity === 'warning' ? 'Warning' : 'Normal', problem.reason, problem.message);
    }
    for (const warning of result.warnings) logger.warn(warning);
    this.configMapProblems.report(result.configMapProblems);

    const served = new Set(acceptance.accepted.map(({ ingress }) => objectKey(ingress)));
    const configuration = result.configuration;
    if (sameJson(configuration, this.submitted)) {
      // nginx runs, or is loading, exactly what these Ingresses ask for (e.g. one only repeats another's routes).
      const settled = this.submittedSettled.then((): SyncReport => {
        if (sameJson(configuration, this.running)) this.options.onServed?.(served);
        return { applied: undefined, outcome: 'skipped' };
      });
      return { skipped: true, settled };
    }
    const modelMs = Math.round(performance.now() - started);
    let applying: Applying;
    try {
      applying = await this.options.dataPlane.apply(result.configuration);
      this.options.observer?.live(result.configuration);
    } catch (error) {
      applying = { done: Promise.resolve({ outcome: 'rejected', error: error instanceof Error ? error.message : String(error) }) };
    }
    const timing = { started, modelMs, liveMs: Math.round(performance.now() - started) - modelMs };
    this.submitted = configuration;
    const attempt: Attempt = { accepted: acceptance.accepted, settings: settingsVersion };
    const settled = applying.done.then((outcome) => this.settle(configuration, served, attempt, outcome, timing));
    this.submittedSettled = settled;
    return { skipped: false, settled };
  }

  /** What follows nginx's answer: Events, metrics, the status of served Ingresses, the log line. */
  private settle(
    configuration: Configuration,
    served: ReadonlySet<string>,
    attempt: Attempt,
    outcome: ApplyOutcome,
    timing: SyncTiming,
  ): SyncReport {
    const { logger, events } = this.options;
    if (outcome.outcome === 'superseded') {
      logger.debug('a newer configuration took the place of this one before its reload');
      return { applied: configuration, outcome: outcome.outcome };
    }
    this.options.observer?.applied(configuration, outcome);
    if (outcome.outcome === 'rejected') {
      logger.error({ error: outcome.error }, 'nginx refused the new configuration; the previous one keeps serving');
      events.recordOnPod('Warning', 'RELOAD', `Error reloading NGINX: ${outcome.error}`);
      // The same configuration is tried again at the next change.
      if (this.submitted === configuration) this.submitted = this.running;
      const contained = this.contain(outcome, attempt);
      if (contained) this.requestResync();
      return { applied: configuration, outcome: outcome.outcome, contained };
    }
    if (outcome.outcome === 'reloaded') events.recordOnPod('Normal', 'RELOAD', 'Backend successfully reloaded');
    this.running = configuration;
    this.containment.accepted(attempt);
    this.options.onServed?.(served);
    logger.info(
      {
        outcome: outcome.outcome,
        servers: configuration.servers.length,
        backends: configuration.backends.length,
        // The model's part, the live push's, then the whole data plane's (rendering and nginx too): where a change's latency goes.
        modelMs: timing.modelMs,
        liveMs: timing.liveMs,
        applyMs: Math.round(performance.now() - timing.started) - timing.modelMs,
      },
      'configuration applied',
    );
    return { applied: configuration, outcome: outcome.outcome };
  }

  /**
   * Leaves out what nginx's refusal was traced to, with an Event on it.
   * Whether a sync without it should follow at once.
   */
  private contain(refused: Refused, attempt: Attempt): boolean {
    const { logger, events } = this.options;
    const containment = this.containment.contain(refused, attempt);
    switch (containment.kind) {
      case 'none':
        logger.error(
          { error: refused.error, reason: containment.reason },
          'nothing to leave out of what nginx refused; the running configuration stays',
        );
        return false;
      case 'ingress': {
        const { ingress, fallback } = containment;
        if (!this.acceptance.quarantine(ingress, fallback)) return false;
        const kept = fallback ? 'the version nginx last accepted keeps serving' : 'the Ingress is not served';
        events.record(ingress, 'Warning', 'Rejected', `nginx refused the configuration of this Ingress: ${refused.error} (${kept})`);
        return this.containment.mayRetry;
      }
      case 'configMap': {
        // A newer ConfigMap version, if one arrived meanwhile, is read afresh.
        if (this.settingsSource !== containment.source) return this.containment.mayRetry;
        this.settings = containment.fallback?.settings ?? DEFAULT_SETTINGS;
        this.defaults = undefined;
        const kept = containment.fallback ? 'the settings nginx last accepted apply' : 'the default settings apply';
        const message = `nginx refused the configuration these settings produce: ${refused.error} (${kept})`;
        logger.error({ configMap: this.options.configMap, error: refused.error }, `global ConfigMap refused by nginx; ${kept}`);
        if (containment.source) events.recordOnConfigMap(containment.source, 'Warning', 'Rejected', message);
        return this.containment.mayRetry;
      }
    }
  }

  /**
   * ingress-nginx's "Sync" Event ("Scheduled for sync") on every served
   * Ingress that is new or changed since the last sync; Ingresses that are
   * gone are forgotten, so a re-created one is reported afresh.
   */
  private reportScheduled(ingresses: readonly Ingress[]): void {
    const current = new Set<string>();
    for (const ingress of ingresses) {
      const key = objectKey(ingress);
      current.add(key);
      if (this.syncedIngresses.get(key) === ingress) continue;
      this.syncedIngresses.set(key, ingress);
      if (this.options.syncEvents === false) this.options.logger.info({ ingress: key, reason: 'Sync' }, 'Scheduled for sync');
      else this.options.events.record(ingress, 'Normal', 'Sync', 'Scheduled for sync');
    }
    for (const key of this.syncedIngresses.keys()) {
      if (current.has(key)) continue;
      this.syncedIngresses.delete(key);
      const [namespace = '', name = ''] = key.split('/');
      this.options.events.forget(namespace, name);
    }
  }

  private currentSettings(): GlobalSettings {
    const source = this.options.configMap ? this.options.store.configMap(this.options.configMap) : undefined;
    if (source === this.settingsSource) return this.settings;
    this.settingsSource = source;
    const parsed = parseGlobalSettings(source?.data, { cpus: availableParallelism() });
    this.reportSettingsProblems(source, parsed);
    this.settings = parsed.settings;
    this.options.store.setSettingsConfigMaps(globalHeaderConfigMaps(parsed.settings));
    this.defaults = undefined;
    return this.settings;
  }

  /**
   * Each refused value and each ignored key of a new ConfigMap version, as a
   * Warning on the ConfigMap (the recorder logs it too), where the operator who
   * edited it looks.
   */
  private reportSettingsProblems(source: ConfigMap | undefined, parsed: GlobalSettingsParseResult): void {
    if (!source) return;
    for (const problem of parsed.problems) this.options.events.recordOnConfigMap(source, 'Warning', 'InvalidValue', problem);
    for (const key of parsed.unknownKeys) {
      this.options.events.recordOnConfigMap(source, 'Warning', 'IgnoredKey', `ConfigMap key ${key}: ${classifyIgnoredKey(key).reason}`);
    }
  }

  /** What a location Portico generates gets: the settings' defaults (no annotations). */
  private defaultAnnotations(settings: GlobalSettings): LocationAnnotations {
    this.defaults ??= defaultLocationAnnotations(settings);
    return this.defaults;
  }
}

function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
}
