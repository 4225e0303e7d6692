// Manifest mode starts without the cluster's modules: client-node alone took
// about 1.5 s of every start to load. The built Portico (dist/) runs under a
// resolve hook that refuses to load @kubernetes/client-node.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertBuildIsCurrent, porticoCommand } from '../support/porticoProcess.js';

const run = promisify(execFile);
const dist = (path: string): string => fileURLToPath(new URL(`../../dist/${path}`, import.meta.url));

const REFUSED = 'refused to load @kubernetes/client-node';
const refusingHooks = `export async function resolve(specifier, context, next) {
  if (specifier === '@kubernetes/client-node' || specifier.startsWith('@kubernetes/client-node/')) throw new Error('${REFUSED}');
  return next(specifier, context);
}`;
const javascript = (text: string): string => `data:text/javascript,${encodeURIComponent(text)}`;
/** For `--import`: registers the hooks above. */
const REFUSE_CLIENT_NODE = javascript(`import { register } from 'node:module'; register(${JSON.stringify(javascript(refusingHooks))});`);

/** `node --import <the hook> ...args`: its exit code and output. */
async function withoutClientNode(args: readonly string[]): Promise<{ code: number; output: string }> {
  await assertBuildIsCurrent();
  try {
    // No coverage of the child (dist/, as porticoProcess.ts starts it): Node 20's runner fails on it and then reports none.
    const env = { ...process.env, NODE_V8_COVERAGE: '' };
    const { stdout, stderr } = await run(process.execPath, ['--import', REFUSE_CLIENT_NODE, ...args], { timeout: 60_000, env });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

test('the hook refuses client-node where a cluster is read (the control)', async () => {
  const { code, output } = await withoutClientNode([
    '--input-type=module',
    '-e',
    `await import(${JSON.stringify(dist('cli/openClusterSource.js'))});`,
  ]);
  assert.notEqual(code, 0);
  assert.match(output, new RegExp(REFUSED));
});

test("portico's own modules load without client-node (portico --version)", async () => {
  const { code, output } = await withoutClientNode([porticoCommand, '--version']);
  assert.equal(code, 0, output);
  assert.match(output, /^portico \d/);
});

test('a manifests folder opens as the source without client-node', async () => {
  const script = `
    const { openSource } = await import(${JSON.stringify(dist('cli/openSource.js'))});
    const { parseCommandLine } = await import(${JSON.stringify(dist('cli/commandLine.js'))});
    const { storeSettingsFromFlags } = await import(${JSON.stringify(dist('cli/storeSettingsFromFlags.js'))});
    const { Store } = await import(${JSON.stringify(dist('store/store.js'))});
    const { silentLogger } = await import(${JSON.stringify(dist('log/logger.js'))});
    const parsed = parseCommandLine(['--manifests=/nonexistent']);
    const opened = await openSource(parsed.flags, new Store(storeSettingsFromFlags(parsed.flags)), silentLogger());
    console.log('opened', opened.cluster === undefined ? 'without a cluster' : 'a cluster');`;
  const { code, output } = await withoutClientNode(['--input-type=module', '-e', script]);
  assert.equal(code, 0, output);
  assert.match(output, /opened without a cluster/);
});
