// The ingress-nginx Deployment's flags Portico would not honour: unknown names,
// values Portico's parser refuses, flags whose meaning cannot apply; a value
// written as the next argument is read with its flag, as pflag reads it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deploymentFlagFindings, flagFindings } from '../../src/check/deploymentFlags.js';
import { FLAG_DEFINITIONS, type FlagDefinition } from '../../src/cli/flags.js';

test('flags Portico takes and honours give no finding, whatever their spelling', () => {
  const honoured = FLAG_DEFINITIONS.filter((definition) => definition.implemented && definition.kind === 'string').slice(0, 2);
  assert.equal(honoured.length, 2);
  const argv = [
    '/nginx-ingress-controller',
    `--${honoured[0]?.name}=a`,
    `--${honoured[1]?.name}`,
    'b',
    '--watch-ingress-without-class',
    '-v=2',
  ];
  assert.deepEqual(flagFindings(argv), []);
});

test('an unknown flag, with or without a value', () => {
  assert.deepEqual(flagFindings(['--no-such-flag', '--other-unknown=1']), [
    { argument: '--no-such-flag', kind: 'unknown', reason: 'Portico has no such flag: it would not start with it' },
    { argument: '--other-unknown=1', kind: 'unknown', reason: 'Portico has no such flag: it would not start with it' },
  ]);
});

test("a value Portico's parser refuses, as `portico` itself would say it", () => {
  assert.deepEqual(flagFindings(['--sync-rate-limit', 'fast', '--enable-metrics=maybe']), [
    {
      argument: '--sync-rate-limit fast',
      kind: 'invalid',
      reason: "option '--sync-rate-limit <float>' argument 'fast' is invalid. expected a number.: Portico would not start with it",
    },
    {
      argument: '--enable-metrics=maybe',
      kind: 'invalid',
      reason: "option '--enable-metrics [bool]' argument 'maybe' is invalid. expected true or false.: Portico would not start with it",
    },
  ]);
});

test('a flag whose meaning cannot apply: a finding with its reason when given another value than its default, none at the default', () => {
  const streamPort: FlagDefinition | undefined = FLAG_DEFINITIONS.find((definition) => definition.name === 'stream-port');
  const reason = streamPort?.cannotApply;
  assert.ok(reason);
  assert.deepEqual(flagFindings(['--stream-port=20247', '--stream-port', '10247', '--internal-logger-address=127.0.0.1:11514']), [
    { argument: '--stream-port=20247', kind: 'cannot-apply', reason: `${reason}; Portico says so at start` },
  ]);
});

test("the controller container's command and args: the one named controller, else the first", () => {
  const deployment = (containers: { name: string; command?: string[]; args?: string[] }[]) => ({
    metadata: { namespace: 'ingress-nginx', name: 'ctl' },
    spec: { selector: {}, template: { spec: { containers } } },
  });
  const named = deploymentFlagFindings(
    deployment([
      { name: 'sidecar', args: ['--sidecar-flag'] },
      { name: 'controller', command: ['/nginx-ingress-controller', '--from-command'], args: ['--from-args'] },
    ]),
  );
  assert.deepEqual(
    named.flags.map((finding) => finding.argument),
    ['--from-command', '--from-args'],
  );
  assert.equal(named.name, 'ingress-nginx/ctl');
  assert.equal(named.container, 'controller');
  assert.equal(deploymentFlagFindings(deployment([{ name: 'main', args: ['--x'] }])).container, 'main');
  assert.deepEqual(deploymentFlagFindings(deployment([])), { name: 'ingress-nginx/ctl', container: '', flags: [] });
});
