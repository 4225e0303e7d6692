// An e2e cluster whose Portico reads a global ConfigMap (`--configmap`) in the
// test's namespace. The ConfigMap exists before Portico starts, so the first
// configuration already has its settings and a test never races the first read.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createTestNamespace, sharedControlPlane } from './controlPlane.js';
import { startE2eCluster, type E2eCluster } from './e2eCluster.js';

export const SETTINGS_CONFIGMAP = 'portico-settings';

export async function startSettingsCluster(name: string, data: Record<string, string> = {}): Promise<E2eCluster> {
  const plane = await sharedControlPlane();
  const namespace = await createTestNamespace(plane.adminKubeconfig, name);
  const admin = new KubeConfig();
  admin.loadFromFile(plane.adminKubeconfig);
  await admin.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace, body: { metadata: { name: SETTINGS_CONFIGMAP }, data } });
  return startE2eCluster(name, [`--configmap=${namespace}/${SETTINGS_CONFIGMAP}`], { namespace });
}

/** Replaces the global ConfigMap's data, as an operator's `kubectl apply` of the whole ConfigMap does. */
export async function putSettings(cluster: E2eCluster, data: Record<string, string>): Promise<void> {
  await cluster.core.replaceNamespacedConfigMap({
    namespace: cluster.namespace,
    name: SETTINGS_CONFIGMAP,
    body: { metadata: { name: SETTINGS_CONFIGMAP }, data },
  });
}
