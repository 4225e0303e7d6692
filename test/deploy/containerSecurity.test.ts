// Portico run the way deploy/deployment.yaml's security context runs it, with
// no container runtime: in a network namespace of its own (so it can take ports
// 80 and 443), a mount namespace whose root is remounted read-only with a
// tmpfs on each emptyDir mount, and `setpriv` keeping uid 0 with exactly the
// manifest's capabilities and no_new_privs. It must serve HTTP and HTTPS
// through workers of another user, who cannot read a file with the token
// volume's mode while the controller can, and stop cleanly on SIGTERM.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { V1Container, V1Deployment } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { parseCommandLine } from '../../src/cli/commandLine.js';
import { spawnGuarded, type GuardedProcess } from '../support/childProcess.js';
import { eventually } from '../support/eventually.js';
import { echoed, httpGet } from '../support/httpGet.js';
import { assertBuildIsCurrent, porticoCommand } from '../support/porticoProcess.js';
import { createTestNetwork, type EchoBackend, type TestNetwork } from '../support/testNetwork.js';
import { containerArgs, controllerDeployment, deployObjects, findObject } from './deployManifests.js';

const run = promisify(execFile);
const host = 'secure.example.test';

// Bit numbers from linux/capability.h, for the names deploy/ may use.
const CAPABILITY_BITS: Readonly<Record<string, number>> = {
  CHOWN: 0,
  DAC_OVERRIDE: 1,
  DAC_READ_SEARCH: 2,
  FOWNER: 3,
  FSETID: 4,
  KILL: 5,
  SETGID: 6,
  SETUID: 7,
  SETPCAP: 8,
  NET_BIND_SERVICE: 10,
  NET_RAW: 13,
  SYS_CHROOT: 18,
  MKNOD: 27,
  AUDIT_WRITE: 29,
  SETFCAP: 31,
};

let network: TestNetwork;
let backend: EchoBackend;
let dir: string;
let portico: GuardedProcess;
let capabilities: string[];
let tokenMode: number;
let ports: { http: number; https: number; healthz: number };

before(async () => {
  const objects = await deployObjects();
  const { deployment, container } = controllerDeployment(objects);
  const flags = parsedFlags(deployment, container);
  ports = { http: flags.httpPort, https: flags.httpsPort, healthz: flags.healthzPort };
  const securityContext = container.securityContext;
  assert.deepEqual(securityContext?.capabilities?.drop, ['ALL']);
  assert.equal(securityContext?.allowPrivilegeEscalation, false);
  assert.equal(securityContext?.readOnlyRootFilesystem, true);
  capabilities = securityContext?.capabilities?.add ?? [];
  tokenMode = tokenVolumeMode(deployment);

  network = await createTestNetwork();
  backend = await network.startEcho({ service: 'web', instance: 'web-1' });
  dir = await mkdtemp(join(tmpdir(), 'portico-container-'));
  await writeFile(
    join(dir, 'manifests.yaml'),
    [
      findObject(objects, 'IngressClass', flags.ingressClass),
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80 }] } },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: [backend.address] }],
        ports: [{ name: 'http', port: backend.port }],
      },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'web' },
        spec: {
          ingressClassName: flags.ingressClass,
          rules: [
            { host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] } },
          ],
        },
      },
    ]
      .map((object) => stringify(object))
      .join('---\n'),
  );

  const writable = emptyDirMounts(deployment, container);
  const script = [
    'set -e',
    ...writable.map((path) => `mkdir -p '${path}' && mount -t tmpfs -o mode=0755 portico-emptydir '${path}'`),
    'mount -o remount,bind,ro /',
    `exec setpriv --bounding-set=-all,${capabilities.map((c) => `+${c.toLowerCase()}`).join(',')} --inh-caps=-all --no-new-privs "$@"`,
  ].join('\n');
  // ip, unshare, bash and setpriv all exec, so the guarded pid ends up being Portico's.
  await assertBuildIsCurrent();
  portico = await spawnGuarded(
    'portico',
    'ip',
    [
      'netns',
      'exec',
      network.name,
      'unshare',
      '--mount',
      '--propagation',
      'private',
      'bash',
      '-c',
      script,
      'container',
      process.execPath,
      porticoCommand,
      '--manifests',
      dir,
      `--nginx-prefix=${flags.nginxPrefix}`,
      `--controller-class=${flags.controllerClass}`,
      `--ingress-class=${flags.ingressClass}`,
    ],
    join(dir, 'portico.log'),
  );
  try {
    await eventually(
      async () => {
        if (portico.hasExited()) throw new Error('portico exited');
        assert.equal((await httpGet({ address: backend.address, port: ports.healthz, path: '/healthz' })).status, 200);
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  } catch (error) {
    throw new Error(`portico did not become healthy: ${(error as Error).message}\n${portico.logTail(40)}`);
  }
});

after(async () => {
  await portico?.stop(15_000);
  await network?.destroy();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function parsedFlags(deployment: V1Deployment, container: V1Container) {
  const parsed = parseCommandLine(containerArgs(deployment, container));
  assert.equal(parsed.kind, 'run');
  return parsed.flags;
}

/** Paths the container mounts emptyDirs on: the only writable places on its read-only root. */
function emptyDirMounts(deployment: V1Deployment, container: V1Container): string[] {
  const emptyDirs = new Set((deployment.spec?.template.spec?.volumes ?? []).filter((v) => v.emptyDir).map((v) => v.name));
  const paths = (container.volumeMounts ?? []).filter((m) => emptyDirs.has(m.name)).map((m) => m.mountPath);
  for (const path of paths) assert.match(path, /^\/[\w./-]+$/);
  assert.ok(paths.length > 0);
  return paths;
}

function tokenVolumeMode(deployment: V1Deployment): number {
  const volume = (deployment.spec?.template.spec?.volumes ?? []).find((v) => v.projected?.sources?.some((s) => s.serviceAccountToken));
  assert.ok(volume?.projected?.defaultMode !== undefined, 'the token volume sets its mode');
  return volume.projected.defaultMode;
}

async function processStatus(pid: number): Promise<Map<string, string>> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  return new Map(text.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
}

async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The fields after the parenthesised command name: state, ppid, ...
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) children.push(Number(entry));
  }
  return children;
}

test('the controller holds exactly the manifest capabilities, with no_new_privs', async () => {
  const status = await processStatus(portico.pid);
  const expected = capabilities.reduce((mask, name) => {
    const bit = CAPABILITY_BITS[name];
    assert.ok(bit !== undefined, `unknown capability ${name}`);
    return mask | (1n << BigInt(bit));
  }, 0n);
  assert.equal(BigInt(`0x${status.get('CapEff')}`), expected);
  assert.equal(status.get('NoNewPrivs'), '1');
  assert.match(status.get('Uid') ?? '', /^0\s/);
});

test('HTTP and HTTPS on ports 80 and 443 reach the backend through the workers', async () => {
  const plain = await httpGet({ address: backend.address, port: ports.http, host });
  assert.equal(plain.status, 200, plain.body);
  assert.equal(echoed(plain).service, 'web');
  const secure = await httpGet({ address: backend.address, port: ports.https, host, https: true });
  assert.equal(secure.status, 200, secure.body);
  assert.equal(echoed(secure).service, 'web');
});

test("nginx workers run as another user, who cannot read a file with the token volume's mode", async () => {
  const masters = [];
  for (const pid of await childrenOf(portico.pid)) {
    if ((await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === 'nginx') masters.push(pid);
  }
  assert.equal(masters.length, 1, 'one nginx master');
  const workers = await childrenOf(masters[0]!);
  assert.ok(workers.length > 0, 'nginx has workers');
  const workerIds = new Set<string>();
  for (const worker of workers) {
    const status = await processStatus(worker);
    workerIds.add(`${status.get('Uid')?.split(/\s+/)[1]}:${status.get('Gid')?.split(/\s+/)[1]}`);
  }
  assert.equal(workerIds.size, 1);
  const [uid, gid] = [...workerIds][0]!.split(':');
  assert.notEqual(uid, '0');

  // Folders anyone may traverse, so that only the file's own mode decides.
  await chmod(dir, 0o755);
  const files = join(dir, 'files');
  await mkdir(files, { mode: 0o755 });
  await chmod(files, 0o755);
  const token = join(files, 'token');
  await writeFile(token, 'not-a-real-token', { mode: tokenMode });
  await chmod(token, tokenMode);
  const readable = join(files, 'readable');
  await writeFile(readable, 'anyone', { mode: 0o644 });
  // As a worker would try it: the workers' uid and gid, no supplementary groups, no capabilities.
  const asWorker = (file: string) => run('setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--inh-caps=-all', 'cat', file]);
  assert.equal((await asWorker(readable)).stdout, 'anyone');
  await assert.rejects(asWorker(token), /Permission denied/);
  // The controller's credentials (uid 0, the manifest's capabilities, no DAC_OVERRIDE) can.
  const bounding = `-all,${capabilities.map((c) => `+${c.toLowerCase()}`).join(',')}`;
  const { stdout } = await run('setpriv', [`--bounding-set=${bounding}`, '--inh-caps=-all', '--no-new-privs', 'cat', token]);
  assert.equal(stdout, 'not-a-real-token');
});

test('SIGTERM stops Portico and nginx with status 0', async () => {
  await portico.stop(30_000);
  assert.deepEqual(await portico.exited, { code: 0, signal: null });
});
