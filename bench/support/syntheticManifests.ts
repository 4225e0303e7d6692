// The synthetic cluster (syntheticCluster.ts) as a manifests folder
// (`--manifests DIR`): one file per Ingress holding it and the objects it
// owns (app-<i> owns web-<i>, api-<i>, their EndpointSlices and its Secret),
// plus one file of IngressClasses.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Ingress } from '../../src/kube/objects.js';
import { syntheticCluster, wildcardCertificate } from './syntheticCluster.js';

export interface SyntheticManifests {
  /** The text of ingress-<i>.yaml, by i. */
  texts: string[];
  /** Every file's bytes together. */
  bytes: number;
  /** The generated Ingresses, by i. */
  ingresses: Ingress[];
}

/** With `endpointAddresses`, every EndpointSlice lists those (live backends) instead of the generated ones. */
export async function writeSyntheticManifests(
  dir: string,
  ingressCount: number,
  endpointAddresses?: readonly string[],
): Promise<SyntheticManifests> {
  const cluster = syntheticCluster(ingressCount, await wildcardCertificate());
  if (endpointAddresses !== undefined) {
    const endpoints = endpointAddresses.map((address) => ({ addresses: [address], conditions: { ready: true } }));
    for (const slice of cluster.endpointSlices) slice.endpoints = endpoints;
  }
  const byIngress = new Map<string, object[]>();
  for (const ingress of cluster.ingresses) byIngress.set(`${ingress.metadata?.namespace}/${ingress.metadata?.name}`, [ingress]);
  const owner = (namespace: string | undefined, name: string | undefined): string => `${namespace}/app-${/-(\d+)/.exec(name ?? '')?.[1]}`;
  for (const object of [...cluster.services, ...cluster.endpointSlices, ...cluster.secrets]) {
    byIngress.get(owner(object.metadata?.namespace, object.metadata?.name))?.push(object);
  }
  // Without the generated resourceVersions: the store would take an edited file's objects for the same versions.
  const manifest = (object: object): object => {
    const { metadata, ...rest } = object as { metadata?: { resourceVersion?: string } };
    const kept = { ...metadata };
    delete kept.resourceVersion;
    return { ...kindOf(object), metadata: kept, ...rest };
  };
  const documents = (objects: readonly object[]): string => objects.map((object) => stringify(manifest(object))).join('---\n');
  const texts = [...byIngress.values()].map(documents);
  let bytes = 0;
  for (const [i, text] of texts.entries()) {
    bytes += Buffer.byteLength(text);
    await writeFile(join(dir, `ingress-${i}.yaml`), text);
  }
  const classes = documents(cluster.ingressClasses);
  await writeFile(join(dir, 'classes.yaml'), classes);
  return { texts, bytes: bytes + Buffer.byteLength(classes), ingresses: cluster.ingresses };
}

/** The generated objects carry no kind: told apart by their shape. */
function kindOf(object: object): { apiVersion: string; kind: string } {
  if ('addressType' in object) return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };
  if ('data' in object || 'type' in object) return { apiVersion: 'v1', kind: 'Secret' };
  const spec = (object as { spec?: object }).spec ?? {};
  if ('controller' in spec) return { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass' };
  if ('rules' in spec || 'defaultBackend' in spec || 'tls' in spec) return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' };
  return { apiVersion: 'v1', kind: 'Service' };
}
