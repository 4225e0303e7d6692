// Reading and writing `.status.loadBalancer.ingress` in e2e tests, and the
// admin's view of the cluster that status tests arrange (Services, Pods, Nodes).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, type V1Ingress } from '@kubernetes/client-node';
import { sharedControlPlane } from './controlPlane.js';
import { ingress, paths, type E2eCluster } from './e2eCluster.js';
import { eventually } from './eventually.js';
import type { PorticoProcess } from './porticoProcess.js';

export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Leases and the replicas' pods live in the controller's namespace (deploy/rbac.yaml). */
export const CONTROLLER_NAMESPACE = 'portico';

export type Address = { ip?: string; hostname?: string };

export async function adminCoreApi(): Promise<CoreV1Api> {
  const config = new KubeConfig();
  config.loadFromFile((await sharedControlPlane()).adminKubeconfig);
  return config.makeApiClient(CoreV1Api);
}

export async function statusOf(cluster: E2eCluster, name: string): Promise<Address[]> {
  const current = await cluster.networking.readNamespacedIngress({ namespace: cluster.namespace, name });
  return (current.status?.loadBalancer?.ingress ?? []).map(({ ip, hostname }) => ({
    ...(ip ? { ip } : {}),
    ...(hostname ? { hostname } : {}),
  }));
}

export async function expectStatus(cluster: E2eCluster, name: string, expected: Address[]): Promise<void> {
  await eventually(async () => assert.deepEqual(await statusOf(cluster, name), expected, `status of ${name}`), {
    timeoutMs: 15_000,
    intervalMs: 100,
  });
}

/** An Ingress of the cluster's class: `<name>.status.test/` to the `app` Service. */
export function appIngress(cluster: E2eCluster, name: string, annotations: Record<string, string> = {}): V1Ingress {
  return ingress(cluster, name, { rules: [{ host: `${name}.status.test`, http: { paths: paths(['/', 'Prefix', 'app']) } }] }, annotations);
}

export async function logText(portico: PorticoProcess): Promise<string> {
  return readFile(portico.process.logPath, 'utf8');
}
