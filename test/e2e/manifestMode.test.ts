// Portico without a cluster (`--manifests DIR`): the folder's manifests are
// served, edits change the routing live, and a broken file next to them does
// not take the working ones down.
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startEchoServer, type RunningEchoServer } from '../../tools/echo/echoServer.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { changeAndReload } from '../support/e2eCluster.js';
import { startPortico, type PorticoProcess } from '../support/porticoProcess.js';

const APP_HOST = 'app.manifest.test';

let manifestDir: string | undefined;
let stagingDir: string | undefined;
let echo: RunningEchoServer | undefined;
let portico: PorticoProcess;

/**
 * Written elsewhere and renamed into the folder, as editors and mounted
 * ConfigMaps replace files: Portico never reads a half-written file.
 */
async function writeManifest(name: string, text: string): Promise<void> {
  if (manifestDir === undefined || stagingDir === undefined) throw new Error('the folders are not created yet');
  const staged = join(stagingDir, name);
  await writeFile(staged, text);
  await rename(staged, join(manifestDir, name));
}

function yamlDocuments(...objects: readonly object[]): string {
  return objects.map((object) => stringify(object)).join('---\n');
}

/** ingress-nginx's default class, and the echo Service whose EndpointSlice is the loopback echo server. */
function echoServiceManifest(server: RunningEchoServer): object[] {
  return [
    { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo' }, spec: { ports: [{ name: 'http', port: 80 }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'echo-1', labels: { 'kubernetes.io/service-name': 'echo' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [server.address] }],
      ports: [{ name: 'http', port: server.port }],
    },
  ];
}

/** An Ingress of the nginx class sending `host` + `path` (Prefix) to the echo Service. */
function ingressManifest(name: string, host: string, path: string): object {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name },
    spec: {
      ingressClassName: 'nginx',
      rules: [{ host, http: { paths: [{ path, pathType: 'Prefix', backend: { service: { name: 'echo', port: { number: 80 } } } }] } }],
    },
  };
}

function appManifest(path: string): string {
  if (echo === undefined) throw new Error('the echo server is not started yet');
  return yamlDocuments(...echoServiceManifest(echo), ingressManifest('app', APP_HOST, path));
}

before(async () => {
  manifestDir = await mkdtemp(join(tmpdir(), 'portico-e2e-manifests-'));
  // On the same filesystem, so that moving a file into the folder is a rename.
  stagingDir = await mkdtemp(join(tmpdir(), 'portico-e2e-manifests-staging-'));
  echo = await startEchoServer({ service: 'manifest-echo', instance: 'manifest-echo-1', host: '127.0.0.1', port: 0 });
  await writeManifest('app.yaml', appManifest('/before'));
  portico = await startPortico([`--manifests=${manifestDir}`]);
});
after(async () => {
  await portico?.stop();
  await echo?.close();
  for (const dir of [manifestDir, stagingDir]) if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Where a request went: the echo service's name, or the HTTP status when no backend answered. */
async function routeOf(host: string, path: string): Promise<string> {
  const result = await httpGet({ port: portico.ports.http, host, path });
  return result.status === 200 ? echoed(result).service : String(result.status);
}

async function expectRoute(host: string, path: string, expected: string): Promise<void> {
  await eventually(async () => assert.equal(await routeOf(host, path), expected, `${host}${path}`), { timeoutMs: 15_000 });
}

test('the manifests are served', () => expectRoute(APP_HOST, '/before', 'manifest-echo'));

test('every edit of a manifest changes the routing live', async () => {
  for (const [previous, next] of [
    ['/before', '/after'],
    ['/after', '/again'],
  ] as const) {
    await writeManifest('app.yaml', appManifest(next));
    await expectRoute(APP_HOST, next, 'manifest-echo');
    await expectRoute(APP_HOST, previous, '404');
  }
});

test('a broken YAML file added to the folder leaves the serving configuration alone', async () => {
  // Its reload and the old workers' retirement first: after it a worker of before would 404 the new host below.
  await changeAndReload([portico], 'writing second.yaml', () =>
    writeManifest('second.yaml', yamlDocuments(ingressManifest('second', 'second.manifest.test', '/'))),
  );
  await expectRoute('second.manifest.test', '/', 'manifest-echo');

  await writeManifest('broken.yaml', 'apiVersion: v1\nkind: Service\nmetadata: { name: broken\n');
  // Portico has read the folder again once it reports the broken file.
  await eventually(() => assert.match(portico.logTail(100), /broken\.yaml/), { timeoutMs: 15_000 });
  assert.equal(await routeOf('second.manifest.test', '/'), 'manifest-echo');
  // Files added while the broken one stays still load.
  await writeManifest('third.yaml', yamlDocuments(ingressManifest('third', 'third.manifest.test', '/')));
  await expectRoute('third.manifest.test', '/', 'manifest-echo');
});

test('a long-lived controller keeps no listener per change batch (no MaxListenersExceededWarning after a dozen syncs)', async () => {
  // Node warns at the 11th listener on one AbortSignal; the loop once added one per pass.
  const edits = 13;
  for (let i = 0; i < edits; i++) {
    await writeManifest('app.yaml', appManifest(`/edit-${i}`));
    await expectRoute(APP_HOST, `/edit-${i}`, 'manifest-echo');
  }
  assert.doesNotMatch(portico.logTail(10_000), /MaxListenersExceededWarning/);
});

test('the start logs once where its time went, phase by phase (start phases)', () => {
  const lines = portico
    .logTail(100_000)
    .split('\n')
    .filter((line) => line.includes('"msg":"start phases"'));
  assert.equal(lines.length, 1);
  const fields = JSON.parse(lines[0]!) as Record<string, unknown>;
  const phases = ['moduleLoadMs', 'setupMs', 'sourceMs', 'syncMs', 'healthMs'];
  const syncParts = ['modelMs', 'prepareMs', 'renderMs', 'nginxStartMs', 'pushMs'];
  for (const name of [...phases, ...syncParts, 'totalMs']) assert.equal(typeof fields[name], 'number', name);
  const sum = (names: readonly string[]): number => names.reduce((total, name) => total + (fields[name] as number), 0);
  // Rounded each: within a few ms of the whole.
  assert.ok(Math.abs(sum(phases) - (fields['totalMs'] as number)) <= phases.length, JSON.stringify(fields));
  assert.ok(sum(syncParts) <= (fields['syncMs'] as number) + syncParts.length, JSON.stringify(fields));
});
