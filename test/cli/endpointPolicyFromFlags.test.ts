// The ports no backend and no TCP/UDP services entry may take: Portico's own,
// and --stream-port, which ingress-nginx reserves though Portico has no
// listener there (its meaning cannot apply).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine } from '../../src/cli/commandLine.js';
import { endpointPolicyFromFlags } from '../../src/cli/endpointPolicyFromFlags.js';

function porticoPorts(argv: string[]): readonly number[] {
  const parsed = parseCommandLine(argv);
  assert.equal(parsed.kind, 'run');
  return endpointPolicyFromFlags(parsed.flags, undefined).guard.porticoPorts;
}

test('--stream-port is among the reserved ports, at its default and when moved', () => {
  assert.deepEqual(
    [...porticoPorts([])].sort((a, b) => a - b),
    [80, 443, 8181, 10245, 10246, 10247, 10254],
  );
  const moved = porticoPorts(['--stream-port=20247', '--profiling=false']);
  assert.ok(moved.includes(20247));
  assert.ok(!moved.includes(10247));
});
