// What `portico check` reads, through the controller's own sources into its own
// store: a cluster listed once (GET and LIST only, never a WATCH or a write), or
// a folder of manifests read once. The ingress-nginx Deployment, which the
// controller never reads, is one GET (or the folder's Deployment of that name).
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { Flags } from '../cli/flags.js';
import { storeSettingsFromFlags } from '../cli/storeSettingsFromFlags.js';
import { KubeHttpClient } from '../kube/kubeHttpClient.js';
import { loadKubeConfig } from '../kube/loadKubeConfig.js';
import { KINDS } from '../kube/objects.js';
import type { Logger } from '../log/logger.js';
import { KubernetesSource } from '../sources/kubernetes/kubernetesSource.js';
import { listManifestFiles, ManifestSource } from '../sources/manifests/manifestSource.js';
import { Store } from '../store/store.js';
import type { Deployment } from './deploymentFlags.js';

export interface CollectedObjects {
  store: Store;
  deployment?: Deployment;
}

/** A read that failed: the cluster or the folder could not be read, or the Deployment is not there (exit code 2). */
export class CollectError extends Error {
  override readonly name = 'CollectError';
}

export async function collectObjects(flags: Flags, fromDeployment: string | undefined, logger: Logger): Promise<CollectedObjects> {
  const store = new Store(storeSettingsFromFlags(flags));
  try {
    const deployment = flags.manifests
      ? await readManifests(flags.manifests, store, fromDeployment, logger)
      : await listCluster(flags, store, fromDeployment, logger);
    return { store, ...(deployment === undefined ? {} : { deployment }) };
  } finally {
    store.changes.close();
  }
}

async function listCluster(
  flags: Flags,
  store: Store,
  fromDeployment: string | undefined,
  logger: Logger,
): Promise<Deployment | undefined> {
  const kubeConfig = loadKubeConfig({
    kubeconfig: flags.kubeconfig,
    apiserverHost: flags.apiserverHost,
    certificateAuthority: flags.certificateAuthority,
  });
  const client = await KubeHttpClient.fromKubeConfig(kubeConfig);
  try {
    const source = new KubernetesSource({
      client,
      store,
      logger,
      watchNamespace: flags.watchNamespace,
      watchNamespaceSelector: flags.watchNamespaceSelector,
    });
    await source.listOnce().catch((error: unknown) => {
      throw new CollectError(`cannot list the cluster at ${client.server}: ${describe(error)}`);
    });
    if (fromDeployment === undefined) return undefined;
    const { namespace, name } = splitKey(fromDeployment);
    const path = `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments/${encodeURIComponent(name)}`;
    return await client.send<Deployment>('GET', path).catch((error: unknown) => {
      throw new CollectError(`cannot read Deployment ${fromDeployment}: ${describe(error)}`);
    });
  } finally {
    await client.close();
  }
}

async function readManifests(
  dir: string,
  store: Store,
  fromDeployment: string | undefined,
  logger: Logger,
): Promise<Deployment | undefined> {
  const sinks = Object.fromEntries(KINDS.map((kind) => [kind, store.sink(kind)]));
  const source = new ManifestSource({ dir, sinks, logger });
  try {
    await source.start(); // reads the whole folder before it resolves
  } catch (error) {
    throw new CollectError(describe(error));
  } finally {
    await source.stop();
  }
  return fromDeployment === undefined ? undefined : manifestDeployment(dir, fromDeployment);
}

/** The folder's Deployment `namespace/name` (in a document of its own or a List's items; `default` when it has no namespace). */
function manifestDeployment(dir: string, key: string): Deployment {
  for (const file of listManifestFiles(dir)) {
    for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
      if (!('toJS' in document)) continue; // an empty stream
      const value: unknown = document.toJS();
      const candidates = isRecord(value) && Array.isArray(value['items']) ? (value['items'] as unknown[]) : [value];
      for (const candidate of candidates) {
        if (!isRecord(candidate) || candidate['kind'] !== 'Deployment') continue;
        const deployment = candidate as Deployment;
        const namespace = deployment.metadata?.namespace || 'default';
        if (`${namespace}/${deployment.metadata?.name ?? ''}` === key) return deployment;
      }
    }
  }
  throw new CollectError(`no Deployment ${key} in the manifests folder ${dir}`);
}

/** `namespace/name`, as --from-deployment takes it. */
export function splitKey(key: string): { namespace: string; name: string } {
  const match = /^([^/]+)\/([^/]+)$/.exec(key);
  if (!match) throw new CollectError(`--from-deployment wants namespace/name, not ${JSON.stringify(key)}`);
  return { namespace: match[1] ?? '', name: match[2] ?? '' };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
