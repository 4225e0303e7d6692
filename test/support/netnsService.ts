/**
 * Starts a test service script as its own process in a test network, on a new
 * address of it, and waits until the script prints `listening <address>:<port>`.
 * The scripts (externalAuthService.ts, requestRecorder.ts) run themselves with
 * `--listen <address>:0` and answer their own inspection path.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnGuarded } from './childProcess.js';
import { eventually } from './eventually.js';
import type { TestNetwork } from './testNetwork.js';

export interface NetnsService {
  address: string;
  port: number;
  stop(): Promise<void>;
}

/** `name` names the service in errors and its log folder; `script` is the service module's own path. */
export async function startNetnsService(network: TestNetwork, name: string, script: string): Promise<NetnsService> {
  const address = await network.addAddress();
  const logDir = await mkdtemp(join(tmpdir(), `portico-${name.replaceAll(' ', '-')}-`));
  const logPath = join(logDir, 'service.log');
  const child = await spawnGuarded(
    name,
    'ip',
    ['netns', 'exec', network.name, process.execPath, '--import', 'tsx', script, '--listen', `${address}:0`],
    logPath,
  );
  const port = await eventually(
    async () => {
      if (child.hasExited()) throw new Error(`the ${name} exited:\n${child.logTail()}`);
      const listening = /^listening .+:(\d+)$/m.exec(await readFile(logPath, 'utf8'))?.[1];
      if (listening === undefined) throw new Error(`the ${name} is not listening yet:\n${child.logTail()}`);
      return Number(listening);
    },
    { timeoutMs: 15_000 },
  );
  return {
    address,
    port,
    async stop() {
      await child.stop(2_000);
      await rm(logDir, { recursive: true, force: true });
    },
  };
}
