// Creates a Secret in the test cluster's namespace, or replaces it when it
// exists (a Secret edit the controller must pick up without an Ingress edit).
import type { V1Secret } from '@kubernetes/client-node';
import type { E2eCluster } from './e2eCluster.js';

/** `data`'s values as text (base64-encoded here); `type` defaults to Opaque. */
export async function applySecret(
  cluster: Pick<E2eCluster, 'core' | 'namespace'>,
  name: string,
  data: Record<string, string>,
  type?: string,
): Promise<void> {
  const { namespace } = cluster;
  const body: V1Secret = {
    metadata: { name },
    ...(type === undefined ? {} : { type }),
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
  };
  try {
    const existing = await cluster.core.readNamespacedSecret({ namespace, name });
    await cluster.core.replaceNamespacedSecret({
      namespace,
      name,
      body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion } },
    });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
    await cluster.core.createNamespacedSecret({ namespace, body });
  }
}
