// One reflector per watched kind, scoped and filtered as ingress-nginx's
// informers are, all writing into the store.
import type { Logger } from '../../log/logger.js';
import type { Kind, KindTypes } from '../../kube/objects.js';
import type { KubeHttpClient } from '../../kube/kubeHttpClient.js';
import type { Store } from '../../store/store.js';
import { Reflector, type ReflectorOptions } from './reflector.js';
import { RESOURCES } from './resources.js';

export interface KubernetesSourceOptions {
  client: KubeHttpClient;
  store: Store;
  logger: Logger;
  /** `--watch-namespace`: namespaced kinds are listed in this namespace only. */
  watchNamespace?: string;
  /** `--watch-namespace-selector`: a label selector for the Namespace reflector. */
  watchNamespaceSelector?: string;
  /** `--sync-period` in milliseconds: every reflector re-lists this often (0: never). */
  syncPeriodMs?: number;
  /** Timing knobs shared by every reflector (tests shorten them). */
  tuning?: Pick<ReflectorOptions<never>, 'watchTimeoutSeconds' | 'inactivityTimeoutMs' | 'backoff' | 'pageSize'>;
}

/** Helm 3 keeps releases in Secrets of this type; they can be huge and are never TLS material. */
const HELM_RELEASE_SECRETS = 'type!=helm.sh/release.v1';
/** Helm 2 (Tiller) keeps releases in ConfigMaps labelled so. */
const TILLER_CONFIGMAPS = 'OWNER!=TILLER';

export class KubernetesSource {
  private readonly reflectors = new Map<Kind, Reflector<KindTypes[Kind]>>();

  constructor(private readonly options: KubernetesSourceOptions) {
    const selectors: Partial<Record<Kind, { labelSelector?: string; fieldSelector?: string }>> = {
      Secret: { fieldSelector: HELM_RELEASE_SECRETS },
      ConfigMap: { labelSelector: TILLER_CONFIGMAPS },
    };
    const kinds: Kind[] = ['IngressClass', 'Service', 'EndpointSlice', 'Secret', 'ConfigMap', 'Ingress'];
    if (options.watchNamespaceSelector) {
      kinds.unshift('Namespace');
      selectors.Namespace = { labelSelector: options.watchNamespaceSelector };
    }
    for (const kind of kinds) {
      this.reflectors.set(
        kind,
        new Reflector<KindTypes[Kind]>({
          ...options.tuning,
          ...selectors[kind],
          resyncPeriodMs: options.syncPeriodMs ?? 0,
          client: options.client,
          resource: RESOURCES[kind],
          sink: options.store.sink(kind),
          logger: options.logger.child({ reflector: kind }),
          // A selector means namespaces are filtered in the store, so namespaced kinds are watched cluster-wide.
          namespace: options.watchNamespaceSelector ? undefined : options.watchNamespace || undefined,
        }),
      );
    }
  }

  /** Reflector of one kind, for tests that look at its counters. */
  reflector(kind: Kind): Reflector<KindTypes[Kind]> | undefined {
    return this.reflectors.get(kind);
  }

  /**
   * Starts every reflector and resolves when all have listed. Ingresses start
   * last, as in ingress-nginx, so their first sync sees the objects they name.
   */
  async start(): Promise<void> {
    const ingress = this.reflectors.get('Ingress');
    const others = [...this.reflectors.values()].filter((reflector) => reflector !== ingress);
    for (const reflector of others) reflector.start();
    await Promise.all(others.map((reflector) => reflector.synced));
    ingress?.start();
    await ingress?.synced;
    this.options.logger.info({ kinds: [...this.reflectors.keys()] }, 'caches synced');
  }

  /** Lists every kind once, in start()'s order, without watching; rejects on the first failed LIST (`portico check`). */
  async listOnce(): Promise<void> {
    const ingress = this.reflectors.get('Ingress');
    const others = [...this.reflectors.values()].filter((reflector) => reflector !== ingress);
    await Promise.all(others.map((reflector) => reflector.listOnce()));
    await ingress?.listOnce();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.reflectors.values()].map((reflector) => reflector.stop()));
  }
}
