// `portico check` against the real kube-apiserver, as an identity that may only
// get and list (no watch, no write), and against a manifests folder holding the
// same objects: both give the same JSON document, asserted whole, and the exit
// code says whether anything would change (0, 1) or the cluster could not be read (2).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig, NetworkingV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import type { CheckReport, IngressFinding } from '../../src/check/checkReport.js';
import { FLAG_DEFINITIONS } from '../../src/cli/flags.js';
import { createTestNamespace, sharedControlPlane } from '../support/controlPlane.js';
import { createManifestObjects } from '../support/createManifestObjects.js';
import { porticoCommand } from '../support/porticoProcess.js';

/** A flag whose ingress-nginx meaning cannot apply: the check reports it with its reason. */
const MAXMIND_LICENSE_KEY =
  FLAG_DEFINITIONS.find((definition) => definition.name === 'maxmind-license-key') ?? assert.fail('no --maxmind-license-key');

const PREFIX = 'nginx.ingress.kubernetes.io';
const CHECK_TIMEOUT_MS = 60_000;
const unique = randomUUID().slice(0, 8);
const className = `check-${unique}`;
const quietClassName = `check-quiet-${unique}`;
const controllerClass = `portico.test/check-${unique}`;
const quietControllerClass = `portico.test/check-quiet-${unique}`;
const readerRole = `portico-check-reader-${unique}`;

let dir: string;
let namespace: string;
let readerKubeconfig: string;
let noRightsKubeconfig: string;
let manifests: string;
let admin: KubeConfig;

interface CheckRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `portico check ARGS` as users run it; resolves with its exit code whatever it is. */
function portico(args: readonly string[]): Promise<CheckRun> {
  return new Promise((resolve, reject) => {
    // No coverage of the dist/ process: Node 20's runner fails on it and then reports none at all (porticoProcess.ts).
    const options = { timeout: CHECK_TIMEOUT_MS, env: { ...process.env, NODE_V8_COVERAGE: '' } };
    execFile(process.execPath, [porticoCommand, 'check', ...args], options, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(new Error(`portico check did not exit by itself: ${error.message}`));
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

function ingress(name: string, host: string, path: string, annotations: Record<string, string>, ingressClass = className): object {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name,
      namespace,
      annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value])),
    },
    spec: {
      ingressClassName: ingressClass,
      rules: [{ host, http: { paths: [{ path, pathType: 'Exact', backend: { service: { name: 'app', port: { number: 80 } } } }] } }],
    },
  };
}

/** The objects of this test, for the cluster and for the manifests folder alike. */
function clusterObjects(): object[] {
  return [
    { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: className }, spec: { controller: controllerClass } },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: quietClassName },
      spec: { controller: quietControllerClass },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'app', namespace }, spec: { ports: [{ name: 'http', port: 80 }] } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ingress-nginx-controller', namespace },
      data: {
        'annotations-risk-level': 'Medium',
        'enable-opentelemetry': 'true',
        'no-such-key': 'x',
        'proxy-body-size': 'lots',
        'proxy-read-timeout': '120',
      },
    },
    ingress('plain', 'shop.example', '/cart', {}),
    ingress('otel', 'otel.example', '/api', { 'enable-opentelemetry': 'true' }),
    ingress('risky', 'risky.example', '/', { 'auth-url': 'http://auth.example/check' }),
    ingress('snippet', 'snippet.example', '/', { 'configuration-snippet': 'return 200;' }),
    ingress('bad-value', 'bad.example', '/', { 'proxy-body-size': 'lots' }),
    ingress('quiet', 'quiet.example', '/', {}, quietClassName),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'ingress-nginx-controller', namespace },
      spec: {
        selector: { matchLabels: { app: 'ingress-nginx' } },
        template: {
          metadata: { labels: { app: 'ingress-nginx' } },
          spec: {
            containers: [
              {
                name: 'controller',
                image: 'registry.k8s.io/ingress-nginx/controller:v1.15.1',
                args: [
                  '/nginx-ingress-controller',
                  '--election-id=ingress-nginx-leader',
                  '--configmap=$(POD_NAMESPACE)/ingress-nginx-controller',
                  '--enable-ssl-passthrough',
                  '--maxmind-license-key=secret',
                  '--this-flag-does-not-exist=1',
                  '--sync-rate-limit',
                  'fast',
                ],
              },
            ],
          },
        },
      },
    },
  ];
}

/** A kubeconfig of the admin's cluster with a token of ServiceAccount `name` instead of the admin's certificate. */
async function serviceAccountKubeconfig(name: string): Promise<string> {
  const core = admin.makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const request = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const token = request.status?.token;
  assert.ok(token, 'the TokenRequest returned no token');
  const config = parse(await readFile((await sharedControlPlane()).adminKubeconfig, 'utf8')) as { users: { user: unknown }[] };
  for (const user of config.users) user.user = { token };
  const path = join(dir, `${name}.kubeconfig`);
  await writeFile(path, stringify(config), { mode: 0o600 });
  return path;
}

before(async () => {
  const plane = await sharedControlPlane();
  admin = new KubeConfig();
  admin.loadFromFile(plane.adminKubeconfig);
  dir = await mkdtemp(join(tmpdir(), 'portico-check-'));
  namespace = await createTestNamespace(plane.adminKubeconfig, 'check');
  const objects = join(dir, 'objects.yaml');
  await writeFile(
    objects,
    clusterObjects()
      .map((object) => stringify(object))
      .join('---\n'),
  );
  await createManifestObjects(admin, objects);
  manifests = join(dir, 'manifests');
  await mkdir(manifests);
  await copyFile(objects, join(manifests, 'objects.yaml'));

  // Reads, and nothing else: no watch, no create/update/patch/delete (not even Events).
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const read = ['get', 'list'];
  await rbac.createClusterRole({
    body: {
      metadata: { name: readerRole },
      rules: [
        { apiGroups: [''], resources: ['services', 'secrets', 'configmaps', 'namespaces'], verbs: read },
        { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingressclasses'], verbs: read },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: read },
      ],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: readerRole },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: readerRole },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace }],
    },
  });
  readerKubeconfig = await serviceAccountKubeconfig('reader');
  noRightsKubeconfig = await serviceAccountKubeconfig('nobody');
});

after(async () => {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await rbac.deleteClusterRoleBinding({ name: readerRole }).catch(() => undefined);
  await rbac.deleteClusterRole({ name: readerRole }).catch(() => undefined);
  const networking = admin.makeApiClient(NetworkingV1Api);
  for (const name of [className, quietClassName]) await networking.deleteIngressClass({ name }).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

function selection(): string[] {
  return [
    `--watch-namespace=${namespace}`,
    `--controller-class=${controllerClass}`,
    `--configmap=${namespace}/ingress-nginx-controller`,
    `--from-deployment=${namespace}/ingress-nginx-controller`,
  ];
}

function expectedReport(): CheckReport {
  const refused = (name: string, reason: string): IngressFinding => ({
    namespace,
    name,
    status: 'refused',
    changes: true,
    serves: [],
    refused: [reason],
    ignored: [],
    problems: [],
  });
  const served = (name: string, host: string, path: string, ignored: string[]): IngressFinding => ({
    namespace,
    name,
    status: 'served',
    changes: ignored.length > 0,
    serves: [
      { host, path: '/', match: 'prefix' },
      { host, path, match: 'exact' },
    ],
    refused: [],
    ignored,
    problems: [],
  });
  return {
    version: 1,
    changes: true,
    ingresses: [
      refused(
        'bad-value',
        `annotation ${PREFIX}/proxy-body-size: invalid value "lots"; expected an nginx size such as 1m, 512k or 0, at most 8589934591g`,
      ),
      served('otel', 'otel.example', '/api', [
        `annotation ${PREFIX}/enable-opentelemetry: Debian 12's nginx has no OpenTelemetry module, so Portico cannot apply it; ignored`,
      ]),
      served('plain', 'shop.example', '/cart', []),
      refused('risky', `annotation ${PREFIX}/auth-url: risk level High is above the ConfigMap's annotations-risk-level Medium`),
      refused(
        'snippet',
        `annotation ${PREFIX}/configuration-snippet: snippet annotations are refused unless the ConfigMap sets allow-snippet-annotations: "true" and annotations-risk-level: Critical (it has false and Medium)`,
      ),
    ],
    configMap: {
      name: `${namespace}/ingress-nginx-controller`,
      found: true,
      refusedValues: [
        'ConfigMap key proxy-body-size: invalid value "lots"; expected an nginx size such as 1m, 512k or 0, at most 8589934591g; keeping the default',
      ],
      ignoredKeys: [
        {
          key: 'enable-opentelemetry',
          kind: 'missing-module',
          reason: "Debian 12's nginx has no OpenTelemetry module, so Portico cannot apply it; ignored",
        },
        { key: 'no-such-key', kind: 'unknown', reason: 'not a ConfigMap key of ingress-nginx v1.15.1; ignored' },
      ],
    },
    deployment: {
      name: `${namespace}/ingress-nginx-controller`,
      container: 'controller',
      flags: [
        {
          argument: '--maxmind-license-key=secret',
          kind: 'cannot-apply',
          reason: `${MAXMIND_LICENSE_KEY.cannotApply}; Portico says so at start`,
        },
        { argument: '--this-flag-does-not-exist=1', kind: 'unknown', reason: 'Portico has no such flag: it would not start with it' },
        {
          argument: '--sync-rate-limit fast',
          kind: 'invalid',
          reason: "option '--sync-rate-limit <float>' argument 'fast' is invalid. expected a number.: Portico would not start with it",
        },
      ],
    },
    warnings: [],
  };
}

test('the cluster, read by an identity that may only get and list: the whole JSON document, exit code 1', async () => {
  const run = await portico([`--kubeconfig=${readerKubeconfig}`, `--ingress-class=${className}`, ...selection(), '-o', 'json']);
  assert.equal(run.code, 1, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), expectedReport());
  // A WATCH or a write (an Event) would be refused with a 403, which Portico logs: nothing was logged.
  assert.equal(run.stderr, '');
});

test('the same objects in a manifests folder give the same document', async () => {
  const run = await portico([`--manifests=${manifests}`, `--ingress-class=${className}`, ...selection(), '--output=json']);
  assert.equal(run.code, 1, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), expectedReport());
});

test('the table names every finding and ends with the summary', async () => {
  const run = await portico([`--kubeconfig=${readerKubeconfig}`, `--ingress-class=${className}`, ...selection()]);
  assert.equal(run.code, 1, run.stderr);
  const lines = run.stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^OBJECT +RESULT +DETAIL$/);
  const row = (object: string, result: string, detail: RegExp): boolean =>
    lines.some((line) => line.startsWith(`${object} `) && new RegExp(` ${result} +${detail.source}$`).test(line));
  assert.ok(row(`Ingress ${namespace}/plain`, 'serves', /shop\.example \/cart \(exact\)/), run.stdout);
  assert.ok(row(`Ingress ${namespace}/risky`, 'refused', /annotation .*auth-url: risk level High .*/), run.stdout);
  assert.ok(row(`Ingress ${namespace}/otel`, 'ignores', /annotation .*enable-opentelemetry: .*/), run.stdout);
  assert.ok(row(`ConfigMap ${namespace}/ingress-nginx-controller`, 'ignores key', /no-such-key \(unknown\): .*/), run.stdout);
  assert.ok(row(`Deployment ${namespace}/ingress-nginx-controller`, 'flag unknown', /--this-flag-does-not-exist=1: .*/), run.stdout);
  assert.equal(
    lines.at(-1),
    `Something would change: 1 of 5 Ingresses served as ingress-nginx would, 1 served differently, 3 refused, ` +
      `1 ConfigMap values refused, 2 ConfigMap keys ignored, ${expectedReport().deployment?.flags.length} flags not honoured.`,
  );
});

test('a class whose Ingresses Portico serves as ingress-nginx does, with no ConfigMap: exit code 0', async () => {
  const run = await portico([
    `--kubeconfig=${readerKubeconfig}`,
    `--watch-namespace=${namespace}`,
    `--controller-class=${quietControllerClass}`,
    `--ingress-class=${quietClassName}`,
    '-o',
    'json',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout) as CheckReport;
  assert.equal(report.changes, false);
  assert.deepEqual(
    report.ingresses.map(({ name, status, changes }) => ({ name, status, changes })),
    [{ name: 'quiet', status: 'served', changes: false }],
  );
});

test('an identity that may not list: exit code 2, and why', async () => {
  const run = await portico([`--kubeconfig=${noRightsKubeconfig}`, `--ingress-class=${className}`, ...selection()]);
  assert.equal(run.code, 2, run.stdout);
  assert.match(run.stderr, /portico check: cannot list the cluster at https:\/\/.+: .*403/);
  assert.equal(run.stdout, '');
});

test('a Deployment that is not there: exit code 2', async () => {
  const run = await portico([`--manifests=${manifests}`, `--ingress-class=${className}`, `--from-deployment=${namespace}/nowhere`]);
  assert.equal(run.code, 2, run.stdout);
  assert.match(run.stderr, new RegExp(`portico check: no Deployment ${namespace}/nowhere in the manifests folder`));
});
