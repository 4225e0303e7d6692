// The objects of deploy/, read the way `kubectl apply -k deploy/` reads them:
// the files its kustomization.yaml lists, every YAML document of each.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';

export const DEPLOY_DIR = fileURLToPath(new URL('../../deploy/', import.meta.url));

export interface DeployObject {
  /** File name inside deploy/, for messages. */
  readonly file: string;
  readonly object: KubernetesObject;
  /** The document's own YAML, for the API server to parse as it parses what kubectl sends. */
  readonly yaml: string;
}

/** The `resources` of deploy/kustomization.yaml. */
export async function kustomizationResources(): Promise<string[]> {
  const kustomization = parse(await readFile(join(DEPLOY_DIR, 'kustomization.yaml'), 'utf8')) as { resources?: unknown };
  if (!Array.isArray(kustomization.resources)) throw new Error('deploy/kustomization.yaml has no resources list');
  return kustomization.resources.map(String);
}

/** Every .yaml file of deploy/ but the kustomization itself. */
export async function manifestFiles(): Promise<string[]> {
  return (await readdir(DEPLOY_DIR)).filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml').sort();
}

export async function deployObjects(): Promise<DeployObject[]> {
  const objects: DeployObject[] = [];
  for (const file of await kustomizationResources()) {
    for (const document of parseAllDocuments(await readFile(join(DEPLOY_DIR, file), 'utf8'))) {
      if (document.errors.length > 0) throw new Error(`deploy/${file}: ${document.errors.map((e) => e.message).join('; ')}`);
      const object = document.toJS() as KubernetesObject | null;
      if (object !== null) objects.push({ file, object, yaml: document.toString() });
    }
  }
  return objects;
}

/** The one object of `kind` named `name`; throws when there is none. */
export function findObject<T extends KubernetesObject>(objects: readonly DeployObject[], kind: string, name: string): T {
  const found = objects.find(({ object }) => object.kind === kind && object.metadata?.name === name);
  if (found === undefined) throw new Error(`deploy/ has no ${kind} ${name}`);
  return found.object as T;
}
