/**
 * Runs the test suite against one shared control plane:
 *   node --import tsx test/run.ts [test files...]
 * With no arguments every test/**\/*.test.ts runs. Exits with the test run's code.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { constants } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane } from './support/controlPlane.js';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const testConcurrency = 2;

async function main(): Promise<number> {
  const requested = process.argv.slice(2);
  const files = requested.length > 0 ? requested.map((file) => resolve(file)) : await findTestFiles(join(repoRoot, 'test'));
  const missing = files.filter((file) => !existsSync(file));
  if (missing.length > 0) throw new Error(`no such test file: ${missing.join(', ')}`);
  if (files.length === 0) throw new Error('no test files found');

  const startedAt = performance.now();
  const plane = await startControlPlane();
  try {
    process.stderr.write(`test control plane ${plane.server} ready in ${Math.round(performance.now() - startedAt)} ms\n`);
    return await runTests(files, {
      ...process.env,
      PORTICO_TEST_ADMIN_KUBECONFIG: plane.adminKubeconfig,
      PORTICO_TEST_CONTROLLER_KUBECONFIG: plane.controllerKubeconfig,
      PORTICO_TEST_SERVER: plane.server,
    });
  } finally {
    await plane.stop();
  }
}

/** node --test does not expand globs on Node 20, so the runner lists the files (sorted, relative to the repo). */
async function findTestFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)))
    .filter((file) => !file.split('/').includes('node_modules'))
    .sort();
}

function runTests(files: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((done, reject) => {
    const tests = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${testConcurrency}`, ...files], {
      cwd: repoRoot,
      env,
      stdio: 'inherit',
    });
    // Ctrl-C or a CI cancel: let the tests end, then the finally block stops the control plane.
    const forward = (signal: NodeJS.Signals): void => {
      tests.kill(signal);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    tests.once('error', reject);
    tests.once('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      done(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`test/run.ts: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
