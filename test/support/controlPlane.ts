import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { spawnGuarded, type GuardedProcess } from './childProcess.js';
import { controlPlaneBinaries } from './controlPlaneBinaries.js';
import { createManifestObjects } from './createManifestObjects.js';
import { freeLoopbackPorts } from './freePort.js';
import { createTestCertificates } from './testCertificates.js';
import { writeKubeconfig } from './testKubeconfig.js';
import { waitUntilHealthy } from './waitUntilHealthy.js';

/** A real kube-apiserver and etcd on loopback, private to whoever started it. */
/** The apiserver's Service ClusterIP range: a test that needs a ClusterIP picks one of 10.0.0.1-254 (spec.clusterIP). */
export const SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';

export interface ControlPlane {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Kubeconfig of a cluster admin (client certificate in group system:masters). */
  readonly adminKubeconfig: string;
  /** Kubeconfig of ServiceAccount portico/portico, permitted only by deploy/rbac.yaml. */
  readonly controllerKubeconfig: string;
  /** http://127.0.0.1:<port> */
  readonly etcdClientUrl: string;
  /** Pids of the running processes; kubeApiServer is undefined while it is killed. */
  processIds(): { readonly etcd: number; readonly kubeApiServer: number | undefined };
  /** SIGKILLs kube-apiserver only; etcd and its data stay. */
  killApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same port and etcd; resolves once /readyz is ok. */
  startApiServer(): Promise<void>;
  /** Compacts etcd to its current revision (provokes 410 Gone for older watches); returns that revision. */
  compactEtcd(): Promise<number>;
  /** Stops both processes and removes the temporary directory. Idempotent. */
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  /** kube-apiserver --min-request-timeout: watches are closed after 1–2× this. */
  readonly minRequestTimeoutSeconds?: number;
  /** false passes --watch-cache=false (every list and watch is served by etcd). */
  readonly watchCache?: boolean;
  /** Appended last; kube-apiserver takes the last value of a repeated flag, so these can override the defaults. */
  readonly extraApiServerArgs?: readonly string[];
}

const startupTimeoutMs = 60_000;
const stopGraceMs = 10_000;
const rbacManifest = fileURLToPath(new URL('../../deploy/rbac.yaml', import.meta.url));
const controllerServiceAccount = { namespace: 'portico', name: 'portico' };
const serviceAccountIssuer = 'https://kubernetes.default.svc';
// Long enough for any test run; the token is never refreshed.
const controllerTokenSeconds = 24 * 60 * 60;

// Temporary directories are named after the owning process, so one killed
// before it could clean up (SIGKILL, a test runner timeout) is recognisable.
const dirPrefix = 'portico-controlplane-';

// Temporary directories of planes not stopped yet, removed at exit as a last resort.
const liveDirs = new Set<string>();
process.on('exit', () => {
  for (const dir of liveDirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Nothing can be reported from an exit handler; the OS reclaims /tmp eventually.
    }
  }
});

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binaries = await controlPlaneBinaries();
  await removeAbandonedDirs();
  const dir = await mkdtemp(join(tmpdir(), `${dirPrefix}${process.pid}-`));
  liveDirs.add(dir);
  let etcd: GuardedProcess | undefined;
  let apiServer: GuardedProcess | undefined;
  let stopped: Promise<void> | undefined;

  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      // The API server first, so it does not log a storm of etcd connection errors.
      await apiServer?.stop(stopGraceMs);
      await etcd?.stop(stopGraceMs);
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      liveDirs.delete(dir);
    })();
    return stopped;
  };

  try {
    const certificates = await createTestCertificates(dir);
    const caCert = await readFile(certificates.caCert);
    const [etcdClientPort, etcdPeerPort, apiServerPort] = await freeLoopbackPorts(3);
    const etcdClientUrl = `http://127.0.0.1:${etcdClientPort}`;
    const etcdPeerUrl = `http://127.0.0.1:${etcdPeerPort}`;
    const server = `https://127.0.0.1:${apiServerPort}`;

    etcd = await spawnGuarded(
      'etcd',
      binaries.etcd,
      [
        '--name=portico-test',
        `--data-dir=${join(dir, 'etcd-data')}`,
        `--listen-client-urls=${etcdClientUrl}`,
        `--advertise-client-urls=${etcdClientUrl}`,
        `--listen-peer-urls=${etcdPeerUrl}`,
        `--initial-advertise-peer-urls=${etcdPeerUrl}`,
        `--initial-cluster=portico-test=${etcdPeerUrl}`,
        // Test data need not survive a power cut; fsync dominates write latency.
        '--unsafe-no-fsync',
        // As kubeadm sets it: lets the API server confirm its watch cache is current.
        '--watch-progress-notify-interval=5s',
      ],
      join(dir, 'etcd.log'),
    );
    await waitUntilHealthy(`${etcdClientUrl}/health`, etcd, startupTimeoutMs);

    const apiServerArgs = [
      `--etcd-servers=${etcdClientUrl}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${apiServerPort}`,
      // Without an explicit address it looks for a default route, which a loopback-only host lacks.
      '--advertise-address=127.0.0.1',
      // Endpoints validation rejects the loopback address the reconciler would write.
      '--endpoint-reconciler-type=none',
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      `--tls-cert-file=${certificates.servingCert}`,
      `--tls-private-key-file=${certificates.servingKey}`,
      `--client-ca-file=${certificates.caCert}`,
      '--authorization-mode=RBAC',
      `--service-account-issuer=${serviceAccountIssuer}`,
      `--service-account-key-file=${certificates.serviceAccountPublicKey}`,
      `--service-account-signing-key-file=${certificates.serviceAccountKey}`,
      // No controller-manager creates default ServiceAccounts for this admission plugin to find.
      '--disable-admission-plugins=ServiceAccount',
      ...(options.minRequestTimeoutSeconds === undefined ? [] : [`--min-request-timeout=${options.minRequestTimeoutSeconds}`]),
      ...(options.watchCache === false ? ['--watch-cache=false'] : []),
      ...(options.extraApiServerArgs ?? []),
    ];
    const apiServerLog = join(dir, 'kube-apiserver.log');
    const startApiServer = async (): Promise<void> => {
      if (apiServer !== undefined && !apiServer.hasExited()) throw new Error('kube-apiserver is already running');
      apiServer = await spawnGuarded('kube-apiserver', binaries.kubeApiServer, apiServerArgs, apiServerLog);
      await waitUntilHealthy(`${server}/readyz`, apiServer, startupTimeoutMs, caCert);
    };
    await startApiServer();

    const adminKubeconfig = join(dir, 'admin.kubeconfig');
    await writeKubeconfig(adminKubeconfig, server, certificates.caCert, 'portico-test-admin', {
      clientCertFile: certificates.adminCert,
      clientKeyFile: certificates.adminKey,
    });
    const admin = new KubeConfig();
    admin.loadFromFile(adminKubeconfig);
    await createManifestObjects(admin, rbacManifest);

    const controllerKubeconfig = join(dir, 'controller.kubeconfig');
    const tokenRequest = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
      ...controllerServiceAccount,
      body: { spec: { audiences: [serviceAccountIssuer], expirationSeconds: controllerTokenSeconds } },
    });
    const token = tokenRequest.status?.token;
    if (token === undefined) throw new Error('the TokenRequest for ServiceAccount portico/portico returned no token');
    await writeKubeconfig(controllerKubeconfig, server, certificates.caCert, 'portico-controller', { token });

    const runningEtcd = etcd;
    return {
      server,
      adminKubeconfig,
      controllerKubeconfig,
      etcdClientUrl,
      processIds: () => ({ etcd: runningEtcd.pid, kubeApiServer: apiServer?.hasExited() === false ? apiServer.pid : undefined }),
      killApiServer: async () => {
        await apiServer?.kill();
      },
      startApiServer,
      compactEtcd: () => compactEtcd(etcdClientUrl),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Removes the temporary directories of control planes whose process has died. */
async function removeAbandonedDirs(): Promise<void> {
  for (const name of await readdir(tmpdir())) {
    if (!name.startsWith(dirPrefix)) continue;
    const owner = Number.parseInt(name.slice(dirPrefix.length), 10);
    if (Number.isInteger(owner) && !isProcessAlive(owner)) {
      await rm(join(tmpdir(), name), { recursive: true, force: true, maxRetries: 3 });
    }
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, but someone else's
  }
}

let shared: Promise<ControlPlane> | undefined;

/**
 * The control plane shared by a whole test run: the one test/run.ts started
 * (named by its environment variables), else one started on first use for
 * this process alone and killed when the process exits.
 */
export async function sharedControlPlane(): Promise<{ adminKubeconfig: string; controllerKubeconfig: string; server: string }> {
  const adminKubeconfig = process.env['PORTICO_TEST_ADMIN_KUBECONFIG'];
  const controllerKubeconfig = process.env['PORTICO_TEST_CONTROLLER_KUBECONFIG'];
  const server = process.env['PORTICO_TEST_SERVER'];
  if (adminKubeconfig !== undefined && controllerKubeconfig !== undefined && server !== undefined) {
    return { adminKubeconfig, controllerKubeconfig, server };
  }
  shared ??= startControlPlane();
  return shared;
}

/**
 * Creates a namespace named `<prefix>-<random suffix>`. Without a
 * controller-manager a deleted namespace stays Terminating forever, so tests
 * never reuse names.
 */
export async function createTestNamespace(adminKubeconfig: string, prefix: string): Promise<string> {
  const admin = new KubeConfig();
  admin.loadFromFile(adminKubeconfig);
  const created = await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { generateName: `${prefix}-` } } });
  const name = created.metadata?.name;
  if (name === undefined) throw new Error('the API server returned a namespace without a name');
  return name;
}

/** Compacts through etcd's HTTP/JSON gateway to the gRPC API (int64 fields travel as strings). */
async function compactEtcd(etcdClientUrl: string): Promise<number> {
  const range = (await postJson(`${etcdClientUrl}/v3/kv/range`, { key: Buffer.from('/').toString('base64') })) as {
    header?: { revision?: string };
  };
  const revision = range.header?.revision;
  if (revision === undefined) throw new Error(`etcd range answer without a revision: ${JSON.stringify(range)}`);
  try {
    await postJson(`${etcdClientUrl}/v3/kv/compaction`, { revision, physical: true });
  } catch (error) {
    // Nothing was written since the last compaction: it already is at this revision.
    if (!(error as Error).message.includes('required revision has been compacted')) throw error;
  }
  return Number(revision);
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url}: HTTP ${response.status}: ${text}`);
  return JSON.parse(text) as unknown;
}
