import { readFile } from 'node:fs/promises';
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

/** Creates every object of a multi-document YAML manifest, in file order. */
export async function createManifestObjects(kubeConfig: KubeConfig, manifestPath: string): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  const documents = parseAllDocuments(await readFile(manifestPath, 'utf8'));
  for (const document of documents) {
    if (document.errors.length > 0) throw new Error(`${manifestPath}: ${document.errors.map((e) => e.message).join('; ')}`);
    const object = document.toJS() as KubernetesObject | null;
    if (object === null) continue; // an empty document, e.g. after a trailing ---
    try {
      await client.create(object);
    } catch (error) {
      throw new Error(`${manifestPath}: cannot create ${object.kind ?? '?'} ${object.metadata?.name ?? '?'}: ${(error as Error).message}`);
    }
  }
}
