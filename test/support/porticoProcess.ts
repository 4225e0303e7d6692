// Portico as a separate process, the way users run it, on free loopback ports.
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnGuarded, type GuardedProcess } from './childProcess.js';
import { eventually } from './eventually.js';
import { freeLoopbackPorts } from './freePort.js';
import { httpGet } from './httpGet.js';

export interface PorticoPorts {
  http: number;
  https: number;
  defaultServer: number;
  status: number;
  healthz: number;
}

export interface PorticoProcess {
  readonly ports: PorticoPorts;
  readonly prefix: string;
  readonly process: GuardedProcess;
  logTail(lines?: number): string;
  /** SIGTERM (graceful: nginx quits), then cleanup. */
  stop(): Promise<void>;
}

/**
 * The `portico` command as users run it: the compiled dist/ (scripts/setup.sh,
 * which scripts/test.sh runs, builds it). Through tsx instead, every start cost
 * about 3.5 s of CPU compiling src/.
 */
export const porticoCommand = fileURLToPath(new URL('../../bin/portico.js', import.meta.url));

export interface StartPorticoOptions {
  readyTimeoutMs?: number;
  /** Added to this process's environment (e.g. POD_NAME, POD_NAMESPACE). */
  env?: Readonly<Record<string, string>>;
  /** Another checkout's bin/portico.js (a benchmark's baseline; its dist/ is not checked); default this one's. */
  command?: string;
  /** Told the ports the moment the process is spawned, before it is healthy (a benchmark times the start from there). */
  onSpawn?: (ports: PorticoPorts) => void;
}

/**
 * nginx could not bind a port this harness had found free: another process
 * (often an outgoing connection, whose source port comes from the same
 * ephemeral range as `listen(0)`'s ports) took it in between.
 */
const PORT_TAKEN = /bind\(\) to \S+ failed \(98: Address already in use\)/;
/** Starts on other free ports after a PORT_TAKEN failure, this many times in all. */
const START_ATTEMPTS = 3;

/**
 * Starts Portico with `args` plus port flags, and waits until its health
 * endpoint says 200. `--post-shutdown-grace-period=0` unless `args` say
 * otherwise, so stop() does not wait out ingress-nginx's 10 s default.
 */
export async function startPortico(args: readonly string[], options: StartPorticoOptions = {}): Promise<PorticoProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(args, options);
    } catch (error) {
      if (attempt >= START_ATTEMPTS || !PORT_TAKEN.test((error as Error).message)) throw error;
    }
  }
}

async function startOnFreePorts(
  args: readonly string[],
  { readyTimeoutMs = 30_000, env, command, onSpawn }: StartPorticoOptions,
): Promise<PorticoProcess> {
  const [http = 0, https = 0, defaultServer = 0, status = 0, healthz = 0] = await freeLoopbackPorts(5);
  const ports = { http, https, defaultServer, status, healthz };
  const dir = await mkdtemp(join(tmpdir(), 'portico-e2e-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
  const prefix = join(dir, 'nginx');
  if (command === undefined) await assertBuildIsCurrent();
  const child = await spawnGuarded(
    'portico',
    process.execPath,
    [
      command ?? porticoCommand,
      `--http-port=${http}`,
      `--https-port=${https}`,
      `--default-server-port=${defaultServer}`,
      `--status-port=${status}`,
      `--healthz-port=${healthz}`,
      '--healthz-host=127.0.0.1',
      `--nginx-prefix=${prefix}`,
      '--post-shutdown-grace-period=0',
      ...args,
    ],
    join(dir, 'portico.log'),
    // No coverage of the Portico process (dist/): Node 20's runner fails on it and then reports none at all.
    { ...env, NODE_V8_COVERAGE: '' },
  );
  onSpawn?.(ports);
  const portico: PorticoProcess = {
    ports,
    prefix,
    process: child,
    logTail: (lines) => child.logTail(lines),
    async stop() {
      await child.stop(15_000);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await eventually(
      async () => {
        if (child.hasExited()) throw new Error(`portico exited:\n${child.logTail(30)}`);
        const response = await httpGet({ port: healthz, path: '/healthz' });
        if (response.status !== 200) throw new Error(`healthz ${response.status}`);
      },
      { timeoutMs: readyTimeoutMs, intervalMs: 100, hopeless: () => child.hasExited() },
    );
  } catch (error) {
    const tail = child.logTail(40);
    await portico.stop();
    throw new Error(`portico did not become healthy: ${(error as Error).message}\n${tail}`);
  }
  return portico;
}

const srcDir = fileURLToPath(new URL('../../src/', import.meta.url));
const buildInfo = fileURLToPath(new URL('../../dist/.tsbuildinfo', import.meta.url));
let buildChecked: Promise<void> | undefined;

/** Refuses to test a dist/ older than src/ (a test file run without scripts/test.sh after an edit). */
export function assertBuildIsCurrent(): Promise<void> {
  buildChecked ??= (async () => {
    const built = await stat(buildInfo).catch(() => undefined);
    if (built === undefined) throw new Error(`no ${buildInfo}: build with bash scripts/setup.sh (scripts/test.sh does)`);
    const files = await readdir(srcDir, { recursive: true, withFileTypes: true });
    for (const file of files.filter((entry) => entry.isFile())) {
      const path = join(file.parentPath, file.name);
      if ((await stat(path)).mtimeMs > built.mtimeMs)
        throw new Error(`${path} is newer than dist/: build with bash scripts/setup.sh (scripts/test.sh does)`);
    }
  })();
  return buildChecked;
}
