// Where the store's objects come from: a folder of manifests, or a cluster.
// The cluster's modules (client-node above all: about 1.5 s of the start to
// load, and 60 MB) are imported only for a cluster, so manifest mode starts
// without them.
import { EventRecorder } from '../controller/events/eventRecorder.js';
import type { KubeHttpClient } from '../kube/kubeHttpClient.js';
import { KINDS } from '../kube/objects.js';
import type { Logger } from '../log/logger.js';
import { ManifestSource } from '../sources/manifests/manifestSource.js';
import type { Store } from '../store/store.js';
import type { Flags } from './flags.js';

export interface Source {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface OpenedSource {
  source: Source;
  events: EventRecorder;
  /** The API server, when the source is a cluster (status and leader election need it). */
  cluster?: { client: KubeHttpClient; contextNamespace: string | undefined };
  close: () => Promise<void>;
}

export async function openSource(flags: Flags, store: Store, logger: Logger): Promise<OpenedSource> {
  if (flags.manifests) {
    const sinks = Object.fromEntries(KINDS.map((kind) => [kind, store.sink(kind)]));
    const source = new ManifestSource({ dir: flags.manifests, sinks, logger: logger.child({ source: 'manifests' }) });
    return { source, events: new EventRecorder({ logger }), close: async () => {} };
  }
  const { openClusterSource } = await import('./openClusterSource.js');
  return openClusterSource(flags, store, logger);
}
