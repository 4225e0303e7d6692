/**
 * Debian's php-fpm as the tests' FastCGI server (backend-protocol: FCGI), run
 * as its own process in a test network, listening on TCP with a configuration
 * of the test's own in a temporary folder. Its document root holds
 * `info.php` and `index.php`, which answer JSON with what the FastCGI request
 * told PHP: the script it runs, the request method and URI, the parameter
 * PORTICO_PARAM (set by fastcgi-params-configmap in the tests).
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnGuarded } from './childProcess.js';
import { eventually } from './eventually.js';
import type { TestNetwork } from './testNetwork.js';

export interface PhpFpm {
  address: string;
  port: number;
  /** The document root: SCRIPT_FILENAME is this plus the script's path. */
  root: string;
  stop(): Promise<void>;
}

/** What the scripts answer. */
export interface PhpRequest {
  script: string;
  method: string;
  uri: string;
  param: string | null;
}

const SCRIPT = `<?php
header('Content-Type: application/json');
echo json_encode([
  'script' => $_SERVER['SCRIPT_FILENAME'] ?? '',
  'method' => $_SERVER['REQUEST_METHOD'] ?? '',
  'uri' => $_SERVER['REQUEST_URI'] ?? '',
  'param' => $_SERVER['PORTICO_PARAM'] ?? null,
]);
`;

/** Debian 12 installs it as php-fpm<version>. */
async function phpFpmBinary(): Promise<string> {
  const found = (await readdir('/usr/sbin')).filter((name) => /^php-fpm[0-9.]+$/.test(name)).sort();
  const binary = found.at(-1);
  if (binary === undefined) throw new Error('php-fpm is not installed (scripts/debian-packages.txt lists it; run scripts/setup.sh)');
  return join('/usr/sbin', binary);
}

/** Starts php-fpm on a new address of `network`, port `port`. */
export async function startPhpFpm(network: TestNetwork, port: number): Promise<PhpFpm> {
  const address = await network.addAddress();
  const dir = await mkdtemp(join(tmpdir(), 'portico-php-fpm-'));
  const root = join(dir, 'www');
  await mkdir(root);
  await writeFile(join(root, 'info.php'), SCRIPT);
  await writeFile(join(root, 'index.php'), SCRIPT);
  const logPath = join(dir, 'php-fpm.log');
  const config = join(dir, 'php-fpm.conf');
  await writeFile(
    config,
    [
      '[global]',
      `error_log = ${logPath}`,
      `pid = ${join(dir, 'php-fpm.pid')}`,
      'daemonize = no',
      '[www]',
      `listen = ${address}:${port}`,
      'pm = static',
      'pm.max_children = 2',
      // Its parameters are what the tests look at, not its environment.
      'clear_env = yes',
      '',
    ].join('\n'),
  );
  await chmod(dir, 0o755);
  // -R: the tests run as root; -n: no php.ini, -y: only this configuration.
  const child = await spawnGuarded(
    'php-fpm',
    'ip',
    ['netns', 'exec', network.name, await phpFpmBinary(), '-R', '-n', '-y', config],
    join(dir, 'stdout.log'),
  );
  await eventually(
    async () => {
      if (child.hasExited()) throw new Error(`php-fpm exited:\n${child.logTail()}\n${await readFile(logPath, 'utf8').catch(() => '')}`);
      const log = await readFile(logPath, 'utf8').catch(() => '');
      if (!log.includes('ready to handle connections')) throw new Error(`php-fpm is not ready yet:\n${log}`);
    },
    { timeoutMs: 15_000 },
  );
  return {
    address,
    port,
    root,
    async stop() {
      await child.stop(2_000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
