// `portico check`'s own options, and the controller's flags read by the controller's parser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECK_USAGE, parseCheckCommandLine } from '../../src/check/checkCommandLine.js';
import { CommandLineError } from '../../src/cli/commandLine.js';

test('its options in both spellings, and the controller flags around them', () => {
  const parsed = parseCheckCommandLine(['--manifests', '/m', '-o', 'json', '--from-deployment=ns/ctl', '--ingress-class=internal']);
  assert.equal(parsed.kind, 'check');
  assert.equal(parsed.fromDeployment, 'ns/ctl');
  assert.equal(parsed.output, 'json');
  assert.equal(parsed.flags.manifests, '/m');
  assert.equal(parsed.flags.ingressClass, 'internal');
  const defaults = parseCheckCommandLine(['--output=table', '--from-deployment', 'a/b']);
  assert.equal(defaults.kind, 'check');
  assert.equal(defaults.output, 'table');
  assert.equal(defaults.fromDeployment, 'a/b');
  assert.equal(defaults.flags.ingressClass, 'nginx');
  const bare = parseCheckCommandLine([]);
  assert.equal(bare.kind, 'check');
  assert.equal(bare.output, 'table');
  assert.equal(bare.fromDeployment, undefined);
});

test('--help prints the usage', () => {
  assert.deepEqual(parseCheckCommandLine(['--kubeconfig=/k', '--help']), { kind: 'exit', exitCode: 0, output: CHECK_USAGE });
});

test('bad command lines are refused with exit code 2', () => {
  for (const argv of [['-o', 'yaml'], ['--output'], ['--from-deployment='], ['--no-such-flag'], ['--sync-rate-limit=fast']]) {
    assert.throws(
      () => parseCheckCommandLine(argv),
      (error: unknown) => error instanceof CommandLineError && error.exitCode === 2,
      argv.join(' '),
    );
  }
});
