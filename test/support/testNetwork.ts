import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnGuarded, type GuardedProcess } from './childProcess.js';

const run = promisify(execFile);

/**
 * A network namespace joined to the host by a veth pair, for backends that
 * Kubernetes accepts in EndpointSlices (loopback and link-local are refused).
 * The host side is 198.18.<k>.1/24, the namespace side 198.18.<k>.2/24, with
 * <k> unique among the networks that exist at the same time.
 */
export interface TestNetwork {
  /** The namespace's name (`portico-<pid>-<n>`). */
  readonly name: string;
  /** The host's address on the link, i.e. where namespace traffic comes from. */
  readonly hostAddress: string;
  /** The namespace's first address; echo backends listen on it by default. */
  readonly address: string;
  /** Adds another 198.18.<k>.x address inside the namespace and returns it. */
  addAddress(): Promise<string>;
  /**
   * Adds `address` (a Service ClusterIP) inside the namespace, with a host route to it over
   * the link, so nginx reaches it as kube-proxy would let it; the route goes with the link.
   */
  addRoutedAddress(address: string): Promise<void>;
  startEcho(options: EchoBackendOptions): Promise<EchoBackend>;
  /** Stops the backends and removes the namespace and its link. Idempotent. */
  destroy(): Promise<void>;
}

export interface EchoBackendOptions {
  readonly service: string;
  readonly instance: string;
  /** Default: a free port. */
  readonly port?: number;
  /** Default: the network's first namespace address. */
  readonly address?: string;
  /** Serve HTTPS with this PEM certificate and key; with `clientCaFile`, only to clients with a certificate it issued. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly clientCaFile?: string };
}

/** An echo server (tools/echo/echoServer.ts) running inside a test network. */
export interface EchoBackend {
  readonly address: string;
  readonly port: number;
  /** `http://address:port` or `https://address:port`. */
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** `portico-<pid>-<n>`: the pid tells whether the creating test process still runs. */
const namespaceName = /^portico-(\d+)-\d+$/;
const logDirSuffix = '-echo-logs-';
const logDirName = /^portico-(\d+)-\d+-echo-logs-\w{6}$/;
const subnetPrefix = '198.18.'; // RFC 2544 benchmarking range: never routed anywhere real
const hostSideLink = (subnet: number): string => `portico${subnet}`;
const namespaceSideLink = 'eth0';
const ipTimeoutMs = 10_000;
const echoStartTimeoutMs = 10_000;
const echoStopGraceMs = 2_000;

let networksCreated = 0;

/** What the exit hook must remove for a network not yet destroyed. */
interface LiveNetwork {
  readonly logDir: string;
  hostLink?: string;
}
const liveNetworks = new Map<string, LiveNetwork>();

// Last resort when a test file ends without destroy(); 'exit' handlers must be
// synchronous. childProcess.ts's own exit hook (registered first, by the
// import above) SIGKILLs the backends; deleting the host-side link removes
// the veth pair at once.
process.on('exit', () => {
  for (const [name, network] of liveNetworks) {
    const commands = [['netns', 'del', name]];
    if (network.hostLink !== undefined) commands.unshift(['link', 'del', network.hostLink]);
    for (const args of commands) {
      try {
        execFileSync('ip', args, { stdio: 'ignore', timeout: ipTimeoutMs });
      } catch {
        // already gone
      }
    }
    rmSync(network.logDir, { recursive: true, force: true });
  }
});

export async function createTestNetwork(): Promise<TestNetwork> {
  await removeStaleRuns();
  const name = `portico-${process.pid}-${networksCreated++}`;
  const live: LiveNetwork = { logDir: await mkdtemp(join(tmpdir(), `${name}${logDirSuffix}`)) };
  liveNetworks.set(name, live);
  let subnet: number;
  try {
    await ip('netns', 'add', name);
    subnet = await addVethPair(name);
  } catch (error) {
    await ip('netns', 'del', name).catch(() => undefined);
    await rm(live.logDir, { recursive: true, force: true });
    liveNetworks.delete(name);
    throw error;
  }
  const link = hostSideLink(subnet);
  live.hostLink = link;
  const hostAddress = `${subnetPrefix}${subnet}.1`;
  const address = `${subnetPrefix}${subnet}.2`;
  const backends = new Set<GuardedProcess>();
  let nextHost = 3;
  let destroyed: Promise<void> | undefined;

  const destroy = (): Promise<void> => {
    destroyed ??= (async () => {
      await Promise.all([...backends].map((backend) => backend.stop(echoStopGraceMs)));
      await ip('link', 'del', link).catch(() => undefined); // takes the namespace's end with it
      await ip('netns', 'del', name);
      await rm(live.logDir, { recursive: true, force: true });
      liveNetworks.delete(name);
    })();
    return destroyed;
  };

  try {
    await ip('addr', 'add', `${hostAddress}/24`, 'dev', link);
    await ip('link', 'set', link, 'up');
    await ip('-n', name, 'addr', 'add', `${address}/24`, 'dev', namespaceSideLink);
    await ip('-n', name, 'link', 'set', namespaceSideLink, 'up');
    await ip('-n', name, 'link', 'set', 'lo', 'up');
  } catch (error) {
    await destroy();
    throw error;
  }

  return {
    name,
    hostAddress,
    address,
    async addAddress() {
      if (nextHost > 254) throw new Error(`test network ${name} has no addresses left`);
      const added = `${subnetPrefix}${subnet}.${nextHost++}`;
      await ip('-n', name, 'addr', 'add', `${added}/24`, 'dev', namespaceSideLink);
      return added;
    },
    async addRoutedAddress(routed) {
      await ip('-n', name, 'addr', 'add', `${routed}/32`, 'dev', namespaceSideLink);
      await ip('route', 'add', `${routed}/32`, 'dev', link);
    },
    async startEcho(options) {
      if (destroyed !== undefined) throw new Error(`test network ${name} is destroyed`);
      const echoAddress = options.address ?? address;
      const echoProcess = await spawnEcho(name, live.logDir, { ...options, address: echoAddress });
      backends.add(echoProcess);
      void echoProcess.exited.then(() => backends.delete(echoProcess));
      try {
        if (destroyed !== undefined) throw new Error(`test network ${name} was destroyed while ${echoProcess.name} started`);
        const port = await waitForListening(echoProcess);
        return {
          address: echoAddress,
          port,
          url: `${options.tls === undefined ? 'http' : 'https'}://${echoAddress}:${port}`,
          pid: echoProcess.pid,
          stop: () => echoProcess.stop(echoStopGraceMs),
        };
      } catch (error) {
        await echoProcess.kill();
        throw error;
      }
    },
    destroy,
  };
}

/**
 * Creates the veth pair on the first free subnet. The host-side link is named
 * after the subnet, so the kernel's refusal of a duplicate name is an atomic
 * lock against parallel test files; it is released when the link goes.
 * Subnets already on the host for another reason are skipped.
 */
async function addVethPair(namespace: string): Promise<number> {
  const hostAddresses = await ip('-o', '-4', 'addr', 'show');
  for (let subnet = 1; subnet <= 254; subnet++) {
    if (hostAddresses.includes(` ${subnetPrefix}${subnet}.`)) continue;
    try {
      await ip('link', 'add', hostSideLink(subnet), 'type', 'veth', 'peer', 'name', namespaceSideLink, 'netns', namespace);
      return subnet;
    } catch (error) {
      if (!(error as Error).message.includes('File exists')) throw error;
    }
  }
  throw new Error(`no free ${subnetPrefix}<k>.0/24 subnet for a test network`);
}

let staleRunsRemoved: Promise<void> | undefined;

/**
 * Deletes the namespaces and log directories of test processes that are gone: runs killed
 * before their exit hook. Once per process is enough.
 */
function removeStaleRuns(): Promise<void> {
  staleRunsRemoved ??= (async () => {
    const isStale =
      (pattern: RegExp) =>
      (name: string): boolean => {
        const pid = pattern.exec(name)?.[1];
        return pid !== undefined && !isRunning(Number(pid));
      };
    const namespaces = (await ip('netns', 'list')).split('\n').map((line) => line.split(' ')[0] ?? '');
    const logDirs = await readdir(tmpdir());
    // A parallel test file may remove the same ones first.
    await Promise.all([
      ...namespaces.filter(isStale(namespaceName)).map((name) => ip('netns', 'del', name).catch(() => undefined)),
      ...logDirs.filter(isStale(logDirName)).map((name) => rm(join(tmpdir(), name), { recursive: true, force: true })),
    ]);
  })();
  return staleRunsRemoved;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let echoesStarted = 0;

/**
 * Runs `setpriv --pdeathsig SIGKILL -- ip netns exec <namespace> node <echo
 * server>`: ip and setpriv both exec their command, so the pid is node's and
 * the kernel kills it if the test process dies.
 */
async function spawnEcho(namespace: string, logDir: string, options: EchoBackendOptions & { address: string }): Promise<GuardedProcess> {
  const script = await echoServerScript();
  const args = ['--listen', `${options.address}:${options.port ?? 0}`, '--service', options.service, '--instance', options.instance];
  if (options.tls !== undefined) args.push('--tls-cert', options.tls.certFile, '--tls-key', options.tls.keyFile);
  if (options.tls?.clientCaFile !== undefined) args.push('--tls-client-ca', options.tls.clientCaFile);
  const logPath = join(logDir, `${options.instance}-${echoesStarted++}.log`);
  return spawnGuarded(`echo ${options.instance}`, 'ip', ['netns', 'exec', namespace, process.execPath, script, ...args], logPath);
}

/** Polls the log for the server's `listening <address>:<port>` line; returns the port. */
async function waitForListening(echoProcess: GuardedProcess): Promise<number> {
  const deadline = Date.now() + echoStartTimeoutMs;
  for (;;) {
    const port = /^listening .+:(\d+)$/m.exec(await readFile(echoProcess.logPath, 'utf8'))?.[1];
    if (port !== undefined) return Number(port);
    if (echoProcess.hasExited()) throw new Error(`${echoProcess.name} exited before listening:\n${echoProcess.logTail()}`);
    if (Date.now() >= deadline)
      throw new Error(`${echoProcess.name} not listening after ${echoStartTimeoutMs} ms:\n${echoProcess.logTail()}`);
    await sleep(10);
  }
}

const echoServerSource = fileURLToPath(new URL('../../tools/echo/echoServer.ts', import.meta.url));
const transpileCacheDir = fileURLToPath(new URL('../../node_modules/.cache/portico-test/', import.meta.url));
let echoServerScriptPath: Promise<string> | undefined;

/**
 * The echo server as plain JavaScript. Under `node --import tsx` it takes
 * ~550 ms to start, as plain node ~150 ms, and a test file starts several.
 * The transpiled copy is cached by source hash, so TypeScript (~1.5 s to
 * load) runs only after the source changes. This works because the echo
 * server imports nothing but node: built-ins.
 */
function echoServerScript(): Promise<string> {
  echoServerScriptPath ??= (async () => {
    const source = readFileSync(echoServerSource, 'utf8');
    const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
    const script = join(transpileCacheDir, `echoServer-${hash}.mjs`);
    if (existsSync(script)) return script;
    const { default: ts } = await import('typescript');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: echoServerSource,
    });
    await mkdir(transpileCacheDir, { recursive: true });
    // Write then rename, so a parallel test file never runs a half-written script.
    const partial = `${script}.${process.pid}.partial`;
    await writeFile(partial, outputText);
    await rename(partial, script);
    return script;
  })();
  return echoServerScriptPath;
}

async function ip(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('ip', args, { timeout: ipTimeoutMs });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`ip ${args.join(' ')} failed: ${stderr.trim() || (error as Error).message}`);
  }
}
