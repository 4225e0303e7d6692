// Services for `service-upstream`, whose backend is the Service's ClusterIP:
// with no kube-proxy in the tests, the ClusterIP is an address of the test
// network with a backend of its own, so a request shows which way it went.
import { SERVICE_CLUSTER_IP_RANGE } from './controlPlane.js';
import { ECHO_PORT, setEndpoints, type E2eCluster } from './e2eCluster.js';
import type { EchoBackend } from './testNetwork.js';

/**
 * A Service with an explicit ClusterIP (a free one of the range, the apiserver refusing one in use)
 * and a backend answering there, reachable from nginx over the test network.
 */
export async function createClusterIpService(cluster: E2eCluster, name: string, endpoints: readonly string[]): Promise<EchoBackend> {
  const base = SERVICE_CLUSTER_IP_RANGE.replace(/\.0\/24$/, '.');
  for (let attempt = 0; attempt < 20; attempt++) {
    const clusterIP = `${base}${100 + Math.floor(Math.random() * 150)}`;
    try {
      await cluster.core.createNamespacedService({
        namespace: cluster.namespace,
        body: { metadata: { name }, spec: { clusterIP, ports: [{ name: 'http', port: 80, targetPort: ECHO_PORT }] } },
      });
    } catch (error) {
      if ((error as { code?: number }).code === 422) continue; // allocated to another test's Service
      throw error;
    }
    await setEndpoints(cluster, name, endpoints);
    await cluster.network.addRoutedAddress(clusterIP);
    return cluster.network.startEcho({ service: name, instance: `${name}-clusterip`, address: clusterIP, port: 80 });
  }
  throw new Error(`no free ClusterIP in ${SERVICE_CLUSTER_IP_RANGE} after 20 attempts`);
}
