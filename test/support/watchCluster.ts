// Runs Portico's Kubernetes source and store against a test control plane.
import { loadKubeConfig } from '../../src/kube/loadKubeConfig.js';
import { KubeHttpClient } from '../../src/kube/kubeHttpClient.js';
import { silentLogger } from '../../src/log/logger.js';
import { KubernetesSource, type KubernetesSourceOptions } from '../../src/sources/kubernetes/kubernetesSource.js';
import { Store, type StoreSettings } from '../../src/store/store.js';

export const TEST_STORE_SETTINGS: StoreSettings = {
  ingressClass: 'nginx',
  controllerClass: 'k8s.io/ingress-nginx',
  ingressClassByName: false,
  watchIngressWithoutClass: false,
  annotationsPrefix: 'nginx.ingress.kubernetes.io',
  disableCatchAll: false,
  namespaceSelectorActive: false,
  configMaps: [],
};

export interface WatchedCluster {
  store: Store;
  source: KubernetesSource;
  stop(): Promise<void>;
}

export async function watchCluster(
  kubeconfig: string,
  options: {
    settings?: Partial<StoreSettings>;
    /** Reach the API server at another address (e.g. through a test proxy), as --apiserver-host does. */
    apiserverHost?: string;
  } & Pick<KubernetesSourceOptions, 'watchNamespace' | 'watchNamespaceSelector' | 'tuning' | 'syncPeriodMs'> = {},
): Promise<WatchedCluster> {
  const client = await KubeHttpClient.fromKubeConfig(loadKubeConfig({ kubeconfig, apiserverHost: options.apiserverHost }));
  const store = new Store({
    ...TEST_STORE_SETTINGS,
    namespaceSelectorActive: Boolean(options.watchNamespaceSelector),
    ...options.settings,
  });
  const source = new KubernetesSource({
    client,
    store,
    logger: silentLogger(),
    watchNamespace: options.watchNamespace,
    watchNamespaceSelector: options.watchNamespaceSelector,
    tuning: options.tuning,
    syncPeriodMs: options.syncPeriodMs,
  });
  return {
    store,
    source,
    async stop() {
      await source.stop();
      store.changes.close();
      await client.close();
    },
  };
}

/** Waits for the first sync, failing with every reflector's last error (e.g. a 403) if it never comes. */
export async function synced(cluster: WatchedCluster, timeoutMs = 20_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const errors = (['Namespace', 'IngressClass', 'Service', 'EndpointSlice', 'Secret', 'ConfigMap', 'Ingress'] as const)
        .map((kind) => ({ kind, error: cluster.source.reflector(kind)?.stats.lastError }))
        .filter((entry) => entry.error !== undefined)
        .map((entry) => `${entry.kind}: ${entry.error}`);
      reject(new Error(`reflectors did not sync within ${timeoutMs} ms; last errors: ${errors.join('; ') || 'none'}`));
    }, timeoutMs);
  });
  try {
    await Promise.race([cluster.source.start(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
