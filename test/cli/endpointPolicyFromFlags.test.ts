// The ports no backend may have and no TCP/UDP services entry may take: every
// port Portico listens on, and the ones ingress-nginx reserves whether or not
// their features are on (--stream-port, which Portico has no listener for as
// its meaning cannot apply, and --ssl-passthrough-proxy-port).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endpointPolicyFromFlags } from '../../src/cli/endpointPolicyFromFlags.js';
import { parseCommandLine } from '../../src/cli/commandLine.js';

function flagsOf(args: string[]) {
  const parsed = parseCommandLine(args);
  assert.equal(parsed.kind, 'run');
  return parsed.flags;
}

test("Portico's own ports, --stream-port and --ssl-passthrough-proxy-port included", () => {
  const flags = flagsOf(['--http-port=81', '--https-port=444', '--stream-port=20000', '--ssl-passthrough-proxy-port=20001']);
  const ports = [...endpointPolicyFromFlags(flags, 30000).guard.porticoPorts].sort((a, b) => a - b);
  assert.deepEqual(ports, [81, 444, 8181, 10245, 10246, 10254, 20000, 20001, 30000]);
});

test('--stream-port is among the reserved ports, at its default and when moved', () => {
  const porticoPorts = (args: string[]) => endpointPolicyFromFlags(flagsOf(args), undefined).guard.porticoPorts;
  assert.deepEqual(
    [...porticoPorts([])].sort((a, b) => a - b),
    [80, 442, 443, 8181, 10245, 10246, 10247, 10254],
  );
  const moved = porticoPorts(['--stream-port=20247', '--profiling=false']);
  assert.ok(moved.includes(20247));
  assert.ok(!moved.includes(10247));
});
