// The admission webhook as the API server uses it: a ValidatingWebhookConfiguration
// (URL on loopback, caBundle of a test CA) sends every Ingress create of this
// test's namespace to a Portico process, and a bad Ingress is refused by the
// API server itself with Portico's message, dry run or not.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionregistrationV1Api, ApiException, KubeConfig, type V1Ingress } from '@kubernetes/client-node';
import { sharedControlPlane } from '../support/controlPlane.js';
import { ingress, paths, startE2eCluster, type E2eCluster } from '../support/e2eCluster.js';
import { eventually } from '../support/eventually.js';
import { freeLoopbackPorts } from '../support/freePort.js';
import { createTestCertificates } from '../support/testCertificates.js';

const PREFIX = 'nginx.ingress.kubernetes.io';
const WEBHOOK = 'ingress.admission.portico.test';

describe('admission webhook registered with the API server', () => {
  let dir: string;
  let cluster: E2eCluster;
  let admission: AdmissionregistrationV1Api;
  let configurationName: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-admission-'));
    const certificates = await createTestCertificates(dir);
    const [port = 0] = await freeLoopbackPorts(1);
    cluster = await startE2eCluster('admission', [
      `--validating-webhook=127.0.0.1:${port}`,
      `--validating-webhook-certificate=${certificates.servingCert}`,
      `--validating-webhook-key=${certificates.servingKey}`,
    ]);
    // Portico starts the webhook right after its first sync, which /healthz already reported.
    await eventually(() => listening(port), { timeoutMs: 10_000 });

    const admin = new KubeConfig();
    admin.loadFromFile((await sharedControlPlane()).adminKubeconfig);
    admission = admin.makeApiClient(AdmissionregistrationV1Api);
    // Cluster-scoped in a control plane other tests share: a name of its own, and only this test's namespace.
    configurationName = `portico-${cluster.namespace}`;
    await admission.createValidatingWebhookConfiguration({
      body: {
        metadata: { name: configurationName },
        webhooks: [
          {
            name: WEBHOOK,
            clientConfig: {
              url: `https://127.0.0.1:${port}/networking/v1/ingresses`,
              caBundle: (await readFile(certificates.caCert)).toString('base64'),
            },
            rules: [{ apiGroups: ['networking.k8s.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['ingresses'] }],
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': cluster.namespace } },
            failurePolicy: 'Fail',
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            timeoutSeconds: 10,
          },
        ],
      },
    });
    // The API server picks the configuration up asynchronously: wait until it refuses a bad Ingress.
    await eventually(async () => assert.match(await refusal(create(badAnnotation('probe'))), /denied the request/), {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
  });

  after(async () => {
    if (configurationName) await admission.deleteValidatingWebhookConfiguration({ name: configurationName }).catch(() => undefined);
    await cluster?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const routed = (
    name: string,
    host: string,
    path: string,
    pathType: 'Exact' | 'Prefix' | 'ImplementationSpecific' = 'Prefix',
    annotations: Record<string, string> = {},
  ) => ingress(cluster, name, { rules: [{ host, http: { paths: paths([path, pathType, 'echo']) } }] }, annotations);

  const badAnnotation = (name: string) =>
    routed(name, `${name}.admission.test`, '/', 'Prefix', { [`${PREFIX}/proxy-body-size`]: '8m; evil' });

  function create(body: V1Ingress, dryRun?: 'All'): Promise<V1Ingress> {
    return cluster.networking.createNamespacedIngress({ namespace: cluster.namespace, body, dryRun });
  }

  /** The API server's refusal message; fails when the request succeeds. */
  async function refusal(request: Promise<unknown>): Promise<string> {
    try {
      await request;
    } catch (error) {
      assert.ok(error instanceof ApiException, `expected an API error, got ${String(error)}`);
      const status = JSON.parse(String(error.body)) as { code: number; message: string };
      assert.equal(status.code, 400);
      return status.message;
    }
    assert.fail('the API server admitted the Ingress');
  }

  const exists = async (name: string) =>
    cluster.networking.readNamespacedIngress({ namespace: cluster.namespace, name }).then(
      () => true,
      (error: unknown) => (error instanceof ApiException && error.code === 404 ? false : Promise.reject(error)),
    );

  it('refuses an invalid annotation value, naming the annotation', async () => {
    const message = await refusal(create(badAnnotation('bad-annotation')));
    assert.equal(
      message,
      `admission webhook "${WEBHOOK}" denied the request: annotation ${PREFIX}/proxy-body-size: invalid value "8m; evil"; expected an nginx size such as 1m, 512k or 0, at most 8589934591g`,
    );
    assert.equal(await exists('bad-annotation'), false);
  });

  it('refuses a regular expression in a Prefix path (strict-validate-path-type)', async () => {
    const message = await refusal(create(routed('bad-path', 'bad-path.admission.test', '/api/(.*)')));
    assert.match(
      message,
      /denied the request: path "\/api\/\(\.\*\)" of host bad-path\.admission\.test \(pathType Prefix\) may contain only/,
    );
  });

  it('admits a good Ingress, then refuses another Ingress for its host and path', async () => {
    await create(routed('owner', 'shared.admission.test', '/api'));
    assert.equal(await exists('owner'), true);
    // Reviews are checked against Portico's last sync, which follows the create within milliseconds;
    // a dry run (which stores nothing) tells when it has happened.
    const thief = routed('thief', 'shared.admission.test', '/api/');
    await eventually(() => refusal(create(thief, 'All')), { timeoutMs: 10_000, intervalMs: 100 });
    const message = await refusal(create(thief));
    assert.match(
      message,
      new RegExp(
        `denied the request: host "shared\\.admission\\.test" path "/api/" \\(pathType Prefix\\) is already served by Ingress ${cluster.namespace}/owner$`,
      ),
    );
    // Another path of the host is fine, and so is an update of the owner itself.
    await create(routed('neighbour', 'shared.admission.test', '/web'));
    const owner = await cluster.networking.readNamespacedIngress({ namespace: cluster.namespace, name: 'owner' });
    owner.metadata = { ...owner.metadata, labels: { touched: 'yes' } };
    await cluster.networking.replaceNamespacedIngress({ namespace: cluster.namespace, name: 'owner', body: owner });
  });

  it('answers a dry-run create the same way, and stores nothing', async () => {
    assert.match(await refusal(create(badAnnotation('dry-bad'), 'All')), /denied the request: annotation .*proxy-body-size/);
    const admitted = await create(routed('dry-good', 'dry-good.admission.test', '/'), 'All');
    assert.equal(admitted.metadata?.name, 'dry-good');
    assert.equal(await exists('dry-good'), false);
  });

  it('lets through Ingresses of another class unchecked', async () => {
    const foreign = badAnnotation('foreign');
    foreign.spec = { ...foreign.spec, ingressClassName: 'someone-else' };
    await create(foreign);
    assert.equal(await exists('foreign'), true);
  });
});

function listening(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve();
    });
    socket.on('error', reject);
  });
}
