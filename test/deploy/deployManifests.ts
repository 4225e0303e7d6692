// The objects of deploy/, read the way `kubectl apply -k deploy/` reads them:
// the files its kustomization.yaml lists, every YAML document of each.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject, V1Container, V1Deployment } from '@kubernetes/client-node';
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

/**
 * The container's args as the kubelet expands them: `$(NAME)` is replaced by
 * the container's environment variable NAME (from a field of the pod; the
 * namespace is the Deployment's), and stays as it is when no such variable is
 * declared, which is an error here.
 */
export function containerArgs(deployment: V1Deployment, container: V1Container): string[] {
  const namespace = deployment.metadata?.namespace ?? '';
  const values = new Map(
    (container.env ?? []).map((variable) => [
      variable.name,
      variable.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace' ? namespace : (variable.value ?? `<${variable.name}>`),
    ]),
  );
  return (container.args ?? []).map((argument) => {
    const expanded = argument.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => values.get(name) ?? whole);
    if (expanded.includes('$(')) throw new Error(`${argument} names an environment variable the container does not declare`);
    return expanded;
  });
}

/** Deployment portico-controller and its one container. */
export function controllerDeployment(objects: readonly DeployObject[]): { deployment: V1Deployment; container: V1Container } {
  const deployment = findObject<V1Deployment>(objects, 'Deployment', 'portico-controller');
  const containers = deployment.spec?.template.spec?.containers ?? [];
  if (containers.length !== 1) throw new Error(`Deployment portico-controller has ${containers.length} containers, expected 1`);
  return { deployment, container: containers[0]! };
}
