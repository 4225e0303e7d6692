/**
 * Runs the test suite against one shared control plane:
 *   node --import tsx test/run.ts [test files...]
 * With no arguments every test/**\/*.test.ts runs. Exits with the test run's code.
 * Ends with the coverage of src/ by the test processes themselves (the whole lcov report: .portico/coverage/lcov.info).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { constants } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startControlPlane } from './support/controlPlane.js';
import { coverageSummary, parseLcov } from './support/coverageSummary.js';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const testConcurrency = 2;
const coverageDir = join(repoRoot, '.portico', 'coverage');
const lcovFile = join(coverageDir, 'lcov.info');
/** Files under this share of their lines covered are named in the summary. */
const COVERAGE_THRESHOLD = 80;

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
    await mkdir(coverageDir, { recursive: true });
    const code = await runTests(files, {
      ...process.env,
      PORTICO_TEST_ADMIN_KUBECONFIG: plane.adminKubeconfig,
      PORTICO_TEST_CONTROLLER_KUBECONFIG: plane.controllerKubeconfig,
      PORTICO_TEST_SERVER: plane.server,
    });
    await printCoverage();
    return code;
  } finally {
    await plane.stop();
  }
}

/** The summary of src/'s coverage, as comment lines after the runner's closing summary (where Node puts its report). */
async function printCoverage(): Promise<void> {
  try {
    const sources = (await readdir(join(repoRoot, 'src'), { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)));
    const lines = coverageSummary(parseLcov(await readFile(lcovFile, 'utf8')), sources, 'src/', COVERAGE_THRESHOLD);
    process.stdout.write(`${lines.map((line) => `# ${line}`).join('\n')}\n# (every file: ${relative(repoRoot, lcovFile)})\n`);
  } catch (error) {
    process.stdout.write(`# no coverage summary: ${(error as Error).message}\n`);
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
    const tests = spawn(
      process.execPath,
      [
        // Coverage of the test processes themselves: the Portico processes they start (dist/) are left out
        // (porticoProcess.ts), since Node 20's runner fails on their coverage and then reports none at all.
        '--import',
        'tsx',
        '--test',
        `--test-concurrency=${testConcurrency}`,
        '--experimental-test-coverage',
        '--test-reporter=tap',
        '--test-reporter-destination=stdout',
        '--test-reporter=lcov',
        `--test-reporter-destination=${lcovFile}`,
        ...files,
      ],
      { cwd: repoRoot, env, stdio: ['inherit', 'pipe', 'inherit'] },
    );
    const outcome = passWithoutCoverageTable(tests.stdout);
    // Ctrl-C or a CI cancel: let the tests end, then the finally block stops the control plane.
    const forward = (signal: NodeJS.Signals): void => {
      tests.kill(signal);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    tests.once('error', reject);
    // 'close', not 'exit': once its output has been read too.
    tests.once('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      // Node 20 exits 1 when it cannot build its coverage report, even though every test passed: the tests' code is 0 then.
      const testsPassed = outcome.coverageFailed && outcome.failed === 0 && outcome.cancelled === 0 && outcome.passed > 0;
      done(code === 1 && testsPassed ? 0 : (code ?? 128 + (signal === null ? 0 : constants.signals[signal])));
    });
  });
}

interface RunOutcome {
  passed: number;
  failed: number;
  cancelled: number;
  /** Node could not build its coverage report (which makes it exit 1). */
  coverageFailed: boolean;
}

/**
 * Copies the runner's TAP to stdout, less its coverage table (every file, tests included: printCoverage() sums up
 * src/), and reads its closing summary as it goes by.
 */
function passWithoutCoverageTable(tap: NodeJS.ReadableStream): RunOutcome {
  const outcome: RunOutcome = { passed: 0, failed: 0, cancelled: 0, coverageFailed: false };
  let inTable = false;
  createInterface({ input: tap, crlfDelay: Infinity }).on('line', (line) => {
    if (line === '# start of coverage report') inTable = true;
    if (!inTable) process.stdout.write(`${line}\n`);
    if (line === '# end of coverage report') inTable = false;
    if (line.startsWith('# Warning: Could not report code coverage')) outcome.coverageFailed = true;
    const count = /^# (pass|fail|cancelled) (\d+)$/.exec(line);
    if (count?.[1] === 'pass') outcome.passed = Number(count[2]);
    if (count?.[1] === 'fail') outcome.failed = Number(count[2]);
    if (count?.[1] === 'cancelled') outcome.cancelled = Number(count[2]);
  });
  return outcome;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`test/run.ts: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
