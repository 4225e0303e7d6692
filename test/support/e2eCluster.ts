// The fixture of an end-to-end test: a namespace and an IngressClass of its
// own on the shared control plane, echo backends in a network namespace with
// Services and EndpointSlices pointing at them, and a Portico process watching
// only that namespace as the least-privileged controller identity.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import {
  CoreV1Api,
  DiscoveryV1Api,
  KubeConfig,
  NetworkingV1Api,
  type V1HTTPIngressPath,
  type V1Ingress,
  type V1IngressSpec,
} from '@kubernetes/client-node';
import { createTestNamespace, sharedControlPlane } from './controlPlane.js';
import { eventually } from './eventually.js';
import { appliedConfigurations, readFrom } from './porticoLog.js';
import { servingWorkerPids, untilRetired } from './nginxWorkers.js';
import { startPortico, type PorticoProcess } from './porticoProcess.js';
import { createTestNetwork, type EchoBackend, type TestNetwork } from './testNetwork.js';

export const ECHO_PORT = 8080;

export interface E2eCluster {
  core: CoreV1Api;
  networking: NetworkingV1Api;
  discovery: DiscoveryV1Api;
  namespace: string;
  /** The IngressClass this test's Portico serves. */
  className: string;
  network: TestNetwork;
  portico: PorticoProcess;
  /** The arguments `portico` got besides its ports: start replicas with them. */
  porticoArgs: readonly string[];
  controllerKubeconfig: string;
  close(): Promise<void>;
}

/**
 * `options.namespace` shares an existing test namespace (another Portico's),
 * so flags such as --configmap can name objects in it at start; `options.env`
 * is added to Portico's environment (POD_NAME, POD_NAMESPACE);
 * `options.readyTimeoutMs` gives Portico longer to become healthy (a
 * benchmark on a busy machine).
 */
export async function startE2eCluster(
  prefix: string,
  extraArgs: readonly string[] = [],
  options: { namespace?: string; env?: Readonly<Record<string, string>>; readyTimeoutMs?: number } = {},
): Promise<E2eCluster> {
  const plane = await sharedControlPlane();
  const admin = new KubeConfig();
  admin.loadFromFile(plane.adminKubeconfig);
  const core = admin.makeApiClient(CoreV1Api);
  const networking = admin.makeApiClient(NetworkingV1Api);
  const discovery = admin.makeApiClient(DiscoveryV1Api);
  const namespace = options.namespace ?? (await createTestNamespace(plane.adminKubeconfig, prefix));
  const unique = randomUUID().slice(0, 8);
  const className = `${prefix}-${unique}`;
  const controllerClass = `portico.test/${unique}`;
  await networking.createIngressClass({ body: { metadata: { name: className }, spec: { controller: controllerClass } } });
  const network = await createTestNetwork();
  const porticoArgs = [
    `--kubeconfig=${plane.controllerKubeconfig}`,
    `--watch-namespace=${namespace}`,
    `--controller-class=${controllerClass}`,
    `--ingress-class=${className}`,
    '--sync-rate-limit=100',
    ...extraArgs,
  ];
  const portico = await startPortico(porticoArgs, { env: options.env, readyTimeoutMs: options.readyTimeoutMs }).catch(
    async (error: unknown) => {
      await network.destroy();
      throw error;
    },
  );
  return {
    core,
    networking,
    discovery,
    namespace,
    className,
    network,
    portico,
    porticoArgs,
    controllerKubeconfig: plane.controllerKubeconfig,
    async close() {
      await portico.stop();
      await network.destroy();
      await networking.deleteIngressClass({ name: className }).catch(() => undefined);
    },
  };
}

/** Starts `count` echo backends for a service, each on its own address, all on ECHO_PORT. */
export async function startBackends(cluster: E2eCluster, service: string, count = 1): Promise<EchoBackend[]> {
  const backends: EchoBackend[] = [];
  for (let i = 1; i <= count; i++) {
    const address = await cluster.network.addAddress();
    backends.push(await cluster.network.startEcho({ service, instance: `${service}-${i}`, address, port: ECHO_PORT }));
  }
  return backends;
}

/**
 * A Service (port 80 named `http` → ECHO_PORT) and one EndpointSlice listing
 * the backends' addresses, as the EndpointSlice controller would write them.
 */
export async function createService(
  cluster: E2eCluster,
  name: string,
  backends: readonly EchoBackend[],
  { ready = true }: { ready?: boolean } = {},
): Promise<void> {
  await cluster.core.createNamespacedService({
    namespace: cluster.namespace,
    body: { metadata: { name }, spec: { ports: [{ name: 'http', port: 80, targetPort: ECHO_PORT }] } },
  });
  await setEndpoints(
    cluster,
    name,
    backends.map((backend) => backend.address),
    { ready },
  );
}

/** Creates or replaces the Service's EndpointSlice with these addresses. */
export async function setEndpoints(
  cluster: E2eCluster,
  service: string,
  addresses: readonly string[],
  { ready = true }: { ready?: boolean } = {},
): Promise<void> {
  const body = {
    metadata: { name: `${service}-slice`, labels: { 'kubernetes.io/service-name': service } },
    addressType: 'IPv4',
    endpoints: addresses.map((address) => ({ addresses: [address], conditions: { ready } })),
    ports: [{ name: 'http', port: ECHO_PORT, protocol: 'TCP' }],
  };
  try {
    const existing = await cluster.discovery.readNamespacedEndpointSlice({ namespace: cluster.namespace, name: body.metadata.name });
    await cluster.discovery.replaceNamespacedEndpointSlice({
      namespace: cluster.namespace,
      name: body.metadata.name,
      body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion } },
    });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
    await cluster.discovery.createNamespacedEndpointSlice({ namespace: cluster.namespace, body });
  }
}

export type PathType = 'Exact' | 'Prefix' | 'ImplementationSpecific';

/** One path of a rule: [path, pathType, service, port (number or name; default 80)]. */
export type PathSpec = readonly [path: string, pathType: PathType, service: string, port?: number | string];

export function paths(...specs: readonly PathSpec[]): V1HTTPIngressPath[] {
  return specs.map(([path, pathType, service, port = 80]) => ({
    path,
    pathType,
    backend: { service: { name: service, port: typeof port === 'number' ? { number: port } : { name: port } } },
  }));
}

/** An Ingress of this test's class. */
export function ingress(
  cluster: E2eCluster,
  name: string,
  spec: Omit<V1IngressSpec, 'ingressClassName'>,
  annotations: Record<string, string> = {},
): V1Ingress {
  return { metadata: { name, annotations }, spec: { ingressClassName: cluster.className, ...spec } };
}

/**
 * applyIngress, then waits until a sync after it has reloaded nginx and the
 * workers that served before have retired (untilRetired: until then one may
 * still take a new connection and answer with the old nginx.conf). A new
 * plain host answers before that reload (the catch-all routes it from live
 * state, lua/portico/routes.lua), so a test that compares nginx's workers or
 * state across later changes must not take the first answer for the reload.
 */
export async function applyIngressAndReload(cluster: E2eCluster, body: V1Ingress, timeoutMs = 20_000): Promise<void> {
  await changeAndReload([cluster.portico], `applying ${body.metadata?.name}`, () => applyIngress(cluster, body), timeoutMs);
}

/**
 * The same wait for any change that reloads nginx (a ConfigMap, a Secret, a
 * manifest file), on each of `porticos` (replicas run an nginx each): until
 * then a separate request may reach a worker of the old nginx.conf. A reload
 * of an earlier change still under way counts too: wait for that one first.
 */
export async function changeAndReload(
  porticos: readonly PorticoProcess[],
  what: string,
  change: () => Promise<unknown>,
  timeoutMs = 20_000,
): Promise<void> {
  const before = await Promise.all(
    porticos.map(async (portico) => ({
      portico,
      offset: (await stat(portico.process.logPath)).size,
      serving: await servingWorkerPids(portico.prefix),
    })),
  );
  await change();
  for (const { portico, offset, serving } of before) {
    await eventually(
      async () => {
        if (appliedConfigurations(await readFrom(portico.process.logPath, offset)).reloads === 0) {
          throw new Error(`no reload within ${timeoutMs} ms of ${what}\n${portico.logTail(20)}`);
        }
      },
      { timeoutMs },
    );
    await untilRetired(portico.prefix, serving, timeoutMs);
  }
}

/** Creates the Ingress, or replaces it when it exists. */
export async function applyIngress(cluster: E2eCluster, body: V1Ingress): Promise<void> {
  const name = body.metadata?.name ?? '';
  try {
    const existing = await cluster.networking.readNamespacedIngress({ namespace: cluster.namespace, name });
    await cluster.networking.replaceNamespacedIngress({
      namespace: cluster.namespace,
      name,
      body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion } },
    });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
    await cluster.networking.createNamespacedIngress({ namespace: cluster.namespace, body });
  }
}
