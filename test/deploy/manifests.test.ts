// deploy/ against the real kube-apiserver: every object passes a server-side
// dry run (schema, strict field validation, admission; nothing is stored), and
// the objects agree with one another and with the flags Portico reads.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type {
  KubernetesObject,
  V1ConfigMap,
  V1Container,
  V1Deployment,
  V1IngressClass,
  V1Service,
  V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { parseAllDocuments, parseDocument } from 'yaml';
import { parseCommandLine, type ParsedCommandLine } from '../../src/cli/commandLine.js';
import { parseGlobalSettings } from '../../src/model/settings/parseGlobalSettings.js';
import { sharedControlPlane } from '../support/controlPlane.js';
import { controlPlaneBinaries } from '../support/controlPlaneBinaries.js';
import {
  containerArgs,
  controllerDeployment,
  DEPLOY_DIR,
  deployObjects,
  findObject,
  kustomizationResources,
  manifestFiles,
  type DeployObject,
} from './deployManifests.js';
import { ServerSideDryRun } from './serverSideDryRun.js';

let objects: DeployObject[];

before(async () => {
  objects = await deployObjects();
});

describe('the API server accepts deploy/', () => {
  let dryRun: ServerSideDryRun;

  before(async () => {
    // The test control plane has created deploy/rbac.yaml's objects for real:
    // that is why apply (not create) is used, and why the namespaced objects
    // find their namespace `portico` (a dry-run Namespace would not exist).
    dryRun = await ServerSideDryRun.connect((await sharedControlPlane()).adminKubeconfig);
  });
  after(() => dryRun?.close());

  test('kustomization.yaml lists every manifest in deploy/', async () => {
    assert.deepEqual([...(await kustomizationResources())].sort(), await manifestFiles());
  });

  test('kubectl kustomize renders the same objects', async () => {
    const { kubectl } = await controlPlaneBinaries();
    const { stdout } = await promisify(execFile)(kubectl, ['kustomize', DEPLOY_DIR], { timeout: 30_000 });
    const identity = (o: { kind?: string; metadata?: { namespace?: string; name?: string } }): string =>
      `${o.kind} ${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;
    const rendered = parseAllDocuments(stdout).map((document) => identity(document.toJS() as KubernetesObject));
    assert.deepEqual(rendered.sort(), objects.map(({ object }) => identity(object)).sort());
  });

  test('every object passes a server-side dry run', async () => {
    assert.ok(objects.length >= 10, `expected the whole installation, found ${objects.length} objects`);
    const refused: string[] = [];
    for (const { file, object, yaml } of objects) {
      const { statusCode, body } = await dryRun.apply(object, yaml);
      if (statusCode !== 200 && statusCode !== 201)
        refused.push(`${file}: ${object.kind} ${object.metadata?.name}: HTTP ${statusCode}: ${body}`);
    }
    assert.deepEqual(refused, []);
  });

  test('the dry run refuses a broken Deployment and a misspelt field', async () => {
    const { object, yaml } = objects.find((o) => o.object.kind === 'Deployment')!;
    const mismatchedSelector = parseDocument(yaml);
    mismatchedSelector.setIn(['spec', 'selector', 'matchLabels'], { 'app.kubernetes.io/name': 'someone-else' });
    const refusedSelector = await dryRun.apply(object, mismatchedSelector.toString());
    assert.equal(refusedSelector.statusCode, 422, refusedSelector.body);
    assert.match(refusedSelector.body, /selector/);

    assert.match(yaml, /\n\s+readinessProbe:/);
    const misspelt = await dryRun.apply(object, yaml.replace('readinessProbe:', 'readinesProbe:'));
    // kube-apiserver answers an undeclared field in an apply patch with a 500.
    assert.ok(misspelt.statusCode >= 400, misspelt.body);
    assert.match(misspelt.body, /readinesProbe: field not declared in schema/);
  });
});

describe('the objects of deploy/ agree with each other and with Portico', () => {
  let deployment: V1Deployment;
  let container: V1Container;
  let command: ParsedCommandLine;

  before(() => {
    ({ deployment, container } = controllerDeployment(objects));
    const parsed = parseCommandLine(containerArgs(deployment, container));
    assert.equal(parsed.kind, 'run');
    command = parsed;
  });

  test('every flag the Deployment passes is one Portico implements', () => {
    // An unknown flag throws in parseCommandLine (before); an accepted but unimplemented one is a warning.
    assert.deepEqual(command.warnings, []);
    assert.deepEqual(command.positionalArguments, []);
  });

  test('container ports and probes are the ports the flags set', () => {
    const { flags } = command;
    const containerPort = (name: string): number | undefined => container.ports?.find((port) => port.name === name)?.containerPort;
    assert.equal(containerPort('http'), flags.httpPort);
    assert.equal(containerPort('https'), flags.httpsPort);
    assert.equal(containerPort('metrics'), flags.healthzPort);
    assert.equal(containerPort('webhook'), Number(/:(\d+)$/.exec(flags.validatingWebhook)?.[1]));
    for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
      assert.equal(probe?.httpGet?.port, flags.healthzPort);
      assert.equal(probe?.httpGet?.path, flags.healthCheckPath);
    }
  });

  test('Services select the controller pods and reach named container ports', () => {
    const podLabels = deployment.spec?.template.metadata?.labels ?? {};
    const portNames = new Set(container.ports?.map((port) => port.name));
    for (const name of ['portico-controller', 'portico-controller-admission']) {
      const service = findObject<V1Service>(objects, 'Service', name);
      for (const [key, value] of Object.entries(service.spec?.selector ?? {}))
        assert.equal(podLabels[key], value, `${name} selector ${key}`);
      for (const port of service.spec?.ports ?? []) assert.ok(portNames.has(String(port.targetPort)), `${name} targets ${port.targetPort}`);
    }
  });

  test('the flags name the objects deploy/ creates', () => {
    const { flags } = command;
    const namespace = deployment.metadata?.namespace;
    const ingressClass = findObject<V1IngressClass>(objects, 'IngressClass', flags.ingressClass);
    assert.equal(ingressClass.spec?.controller, flags.controllerClass);
    assert.equal(findObject<V1ConfigMap>(objects, 'ConfigMap', 'portico-controller').metadata?.namespace, namespace);
    assert.equal(flags.configmap, `${namespace}/portico-controller`);
    assert.equal(flags.publishService, `${namespace}/portico-controller`);
    assert.equal(
      findObject(objects, 'ServiceAccount', deployment.spec?.template.spec?.serviceAccountName ?? '').metadata?.namespace,
      namespace,
    );
  });

  test('the webhook calls the admission Service, whose pods serve the certificate mounted from its Secret', () => {
    const webhooks =
      findObject<V1ValidatingWebhookConfiguration>(objects, 'ValidatingWebhookConfiguration', 'portico-admission').webhooks ?? [];
    assert.equal(webhooks.length, 1);
    const service = webhooks[0]!.clientConfig.service;
    const admission = findObject<V1Service>(objects, 'Service', service?.name ?? '');
    assert.equal(admission.metadata?.namespace, service?.namespace);
    assert.ok(admission.spec?.ports?.some((port) => port.port === (service?.port ?? 443) && port.targetPort === 'webhook'));

    const { flags } = command;
    const certificateMount = container.volumeMounts?.find((mount) => flags.validatingWebhookCertificate.startsWith(`${mount.mountPath}/`));
    assert.ok(certificateMount, 'the webhook certificate is on a mounted volume');
    assert.ok(flags.validatingWebhookKey.startsWith(`${certificateMount.mountPath}/`));
    const volume = deployment.spec?.template.spec?.volumes?.find((v) => v.name === certificateMount.name);
    assert.equal(volume?.secret?.secretName, 'portico-admission');
  });

  test('nginx runs on a writable volume, and the token is readable by its owner only', () => {
    const podSpec = deployment.spec?.template.spec;
    assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
    const prefixMount = container.volumeMounts?.find((mount) => command.flags.nginxPrefix.startsWith(`${mount.mountPath}/`));
    assert.ok(prefixMount, `--nginx-prefix ${command.flags.nginxPrefix} is on a mounted volume`);
    assert.ok(podSpec?.volumes?.find((v) => v.name === prefixMount.name)?.emptyDir);

    assert.equal(podSpec?.automountServiceAccountToken, false);
    const tokenMount = container.volumeMounts?.find((mount) => mount.mountPath === '/var/run/secrets/kubernetes.io/serviceaccount');
    const tokenVolume = podSpec?.volumes?.find((v) => v.name === tokenMount?.name)?.projected;
    assert.ok(tokenVolume?.sources?.some((source) => source.serviceAccountToken?.path === 'token'));
    assert.equal(tokenVolume?.defaultMode, 0o400);
  });

  test('the pod is given time for the whole shutdown', () => {
    const { flags } = command;
    const configMap = findObject<V1ConfigMap>(objects, 'ConfigMap', 'portico-controller');
    const { settings, problems, unknownKeys } = parseGlobalSettings(configMap.data, { cpus: 1 });
    assert.deepEqual([problems, unknownKeys], [[], []]);
    const workerShutdown = /^(\d+)s$/.exec(settings.workerShutdownTimeout);
    assert.ok(workerShutdown, `worker-shutdown-timeout ${settings.workerShutdownTimeout} in seconds`);
    const needed = flags.shutdownGracePeriod + Number(workerShutdown[1]) + flags.postShutdownGracePeriod;
    assert.ok((deployment.spec?.template.spec?.terminationGracePeriodSeconds ?? 30) >= needed, `at least ${needed} s`);
  });
});
