// A cluster as the store's source: the API server's client, its watches, and
// Events written to it. Imported by openSource.ts only for a cluster.
import { EventRecorder } from '../controller/events/eventRecorder.js';
import { KubernetesEventSink } from '../controller/events/eventSink.js';
import { controllerPod } from '../kube/controllerPod.js';
import { KubeHttpClient } from '../kube/kubeHttpClient.js';
import { loadKubeConfig } from '../kube/loadKubeConfig.js';
import type { Logger } from '../log/logger.js';
import { KubernetesSource } from '../sources/kubernetes/kubernetesSource.js';
import type { Store } from '../store/store.js';
import type { Flags } from './flags.js';
import type { OpenedSource } from './openSource.js';

export async function openClusterSource(flags: Flags, store: Store, logger: Logger): Promise<OpenedSource> {
  const kubeConfig = loadKubeConfig({
    kubeconfig: flags.kubeconfig,
    apiserverHost: flags.apiserverHost,
    certificateAuthority: flags.certificateAuthority,
  });
  const client = await KubeHttpClient.fromKubeConfig(kubeConfig);
  logger.info({ server: client.server }, 'connecting to the API server');
  const source = new KubernetesSource({
    client,
    store,
    logger,
    watchNamespace: flags.watchNamespace,
    watchNamespaceSelector: flags.watchNamespaceSelector,
    syncPeriodMs: flags.syncPeriod,
  });
  const events = new EventRecorder({
    logger,
    sink: new KubernetesEventSink(client),
    pod: await controllerPod(kubeConfig, process.env, logger),
  });
  const contextNamespace = kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace;
  return { source, events, cluster: { client, contextNamespace }, close: () => client.close() };
}
