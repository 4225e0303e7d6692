// scripts/webhook-certificate.sh against the real kube-apiserver, with the
// real kubectl and openssl: it stores a serving certificate for the webhook
// Service in the Secret the Deployment mounts and puts its CA into the
// ValidatingWebhookConfiguration; a second run rotates both.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID, X509Certificate, createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:tls';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AdmissionregistrationV1Api, CoreV1Api, KubeConfig, type V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { controlPlaneBinaries } from '../support/controlPlaneBinaries.js';
import { deployObjects, findObject } from './deployManifests.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../scripts/webhook-certificate.sh', import.meta.url));
const service = 'portico-controller-admission';

let adminKubeconfig: string;
let core: CoreV1Api;
let admission: AdmissionregistrationV1Api;
let namespace: string;
let webhookName: string;

before(async () => {
  adminKubeconfig = (await sharedControlPlane()).adminKubeconfig;
  const admin = new KubeConfig();
  admin.loadFromFile(adminKubeconfig);
  core = admin.makeApiClient(CoreV1Api);
  admission = admin.makeApiClient(AdmissionregistrationV1Api);
  namespace = await createTestNamespace(adminKubeconfig, 'webhook-certificate');

  // deploy/'s webhook configuration, pointed at this test's namespace and
  // made to match no object, so that other tests' Ingress writes never call it.
  const configuration = structuredClone(
    findObject<V1ValidatingWebhookConfiguration>(await deployObjects(), 'ValidatingWebhookConfiguration', 'portico-admission'),
  );
  webhookName = `portico-admission-${randomUUID().slice(0, 8)}`;
  configuration.metadata = { name: webhookName };
  for (const webhook of configuration.webhooks ?? []) {
    webhook.clientConfig.service!.namespace = namespace;
    webhook.objectSelector = { matchLabels: { 'portico.test/never': webhookName } };
  }
  await admission.createValidatingWebhookConfiguration({ body: configuration });
});

after(async () => {
  if (webhookName !== undefined) await admission.deleteValidatingWebhookConfiguration({ name: webhookName });
});

interface Issued {
  ca: X509Certificate;
  certificate: X509Certificate;
  key: string;
  caBundle: string;
}

async function runScript(): Promise<Issued> {
  // The kubectl built beside the control plane, first on PATH: the machine's own may be missing or another version.
  const path = `${dirname((await controlPlaneBinaries()).kubectl)}:${process.env['PATH'] ?? ''}`;
  await run('bash', [script], {
    env: { ...process.env, PATH: path, KUBECONFIG: adminKubeconfig, NAMESPACE: namespace, WEBHOOK: webhookName, DAYS: '2' },
    timeout: 60_000,
  });
  const secret = await core.readNamespacedSecret({ namespace, name: 'portico-admission' });
  assert.equal(secret.type, 'kubernetes.io/tls');
  const file = (name: string): string => Buffer.from(secret.data?.[name] ?? '', 'base64').toString('utf8');
  const webhooks = (await admission.readValidatingWebhookConfiguration({ name: webhookName })).webhooks ?? [];
  assert.equal(webhooks.length, 1);
  return {
    ca: new X509Certificate(file('ca.crt')),
    certificate: new X509Certificate(file('tls.crt')),
    key: file('tls.key'),
    caBundle: Buffer.from(webhooks[0]!.clientConfig.caBundle ?? '', 'base64').toString('utf8'),
  };
}

/** A TLS handshake as the API server makes it: trusting only caBundle, checking the Service's DNS name. */
async function handshake(issued: Issued): Promise<string | undefined> {
  const server = createServer({ cert: issued.certificate.toString(), key: issued.key }, (socket) => socket.end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const socket = connect({
      host: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      servername: `${service}.${namespace}.svc`,
      ca: issued.caBundle,
    });
    try {
      await once(socket, 'secureConnect');
      return socket.authorizationError?.message;
    } finally {
      socket.destroy();
    }
  } finally {
    server.close();
  }
}

test('the script issues a certificate for the webhook Service that caBundle trusts, and a second run rotates it', async () => {
  const first = await runScript();
  assert.equal(first.caBundle, first.ca.toString());
  assert.ok(first.ca.ca, 'ca.crt is a CA certificate');
  assert.ok(!first.certificate.ca);
  assert.ok(first.certificate.verify(first.ca.publicKey), 'tls.crt is signed by ca.crt');
  assert.ok(first.certificate.checkPrivateKey(createPrivateKey(first.key)), 'tls.key belongs to tls.crt');
  assert.match(first.certificate.subjectAltName ?? '', new RegExp(`DNS:${service}\\.${namespace}\\.svc(,|$)`));
  assert.equal(await handshake(first), undefined);

  const second = await runScript();
  assert.notEqual(second.ca.fingerprint256, first.ca.fingerprint256);
  assert.equal(second.caBundle, second.ca.toString());
  assert.equal(await handshake(second), undefined);
  // The old CA no longer vouches for the new certificate.
  assert.ok(!second.certificate.verify(first.ca.publicKey));
});
