// Drives a namespace's ConfigMaps through creates, updates and deletes, and
// compares what the API server holds with what a store holds.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Store } from '../../src/store/store.js';

export function adminCoreApi(adminKubeconfig: string): CoreV1Api {
  const config = new KubeConfig();
  config.loadFromFile(adminKubeconfig);
  return config.makeApiClient(CoreV1Api);
}

function statusOf(error: unknown): number | undefined {
  return (error as { code?: number }).code;
}

/** Retries an idempotent write while the API server is away (bounded). */
async function retrying(operation: () => Promise<unknown>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await operation();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

/** Sets ConfigMap `name` to hold `value`, creating it if needed. */
export async function putConfigMap(core: CoreV1Api, namespace: string, name: string, value: string): Promise<void> {
  await retrying(async () => {
    const body = { metadata: { name }, data: { value } };
    try {
      await core.replaceNamespacedConfigMap({ namespace, name, body });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      await core.createNamespacedConfigMap({ namespace, body });
    }
  });
}

export async function deleteConfigMap(core: CoreV1Api, namespace: string, name: string): Promise<void> {
  await retrying(async () => {
    try {
      await core.deleteNamespacedConfigMap({ namespace, name });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  });
}

/**
 * `steps` random puts and deletes over `names` ConfigMaps; `onStep` runs
 * before each step (to break things mid-way).
 */
export async function churnConfigMaps(
  core: CoreV1Api,
  namespace: string,
  { steps, names = 8, onStep }: { steps: number; names?: number; onStep?: (step: number) => Promise<void> },
): Promise<void> {
  for (let step = 0; step < steps; step++) {
    await onStep?.(step);
    const name = `churn-${step % names}`;
    if ((step * 7) % 5 === 0) await deleteConfigMap(core, namespace, name);
    else await putConfigMap(core, namespace, name, `v${step}`);
  }
}

/** name → resourceVersion of the namespace's ConfigMaps, as the API server has them. */
export async function configMapsInCluster(core: CoreV1Api, namespace: string): Promise<Map<string, string>> {
  const list = await core.listNamespacedConfigMap({ namespace });
  return new Map(list.items.map((c) => [c.metadata?.name ?? '', c.metadata?.resourceVersion ?? '']));
}

/** name → resourceVersion of the namespace's ConfigMaps, as the store has them. */
export function configMapsInStore(store: Store, namespace: string): Map<string, string> {
  return new Map(
    store
      .all('ConfigMap')
      .filter((c) => c.metadata?.namespace === namespace)
      .map((c) => [c.metadata?.name ?? '', c.metadata?.resourceVersion ?? '']),
  );
}

const sorted = (map: Map<string, string>) => [...map].sort(([a], [b]) => a.localeCompare(b));

/** Both views as sorted entry lists, for deepEqual. */
export async function storeAndTruth(store: Store, core: CoreV1Api, namespace: string) {
  return { store: sorted(configMapsInStore(store, namespace)), truth: sorted(await configMapsInCluster(core, namespace)) };
}
