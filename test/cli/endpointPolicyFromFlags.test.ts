// The ports no backend may have (endpointPolicyFromFlags.ts): with SSL
// passthrough, the internal TLS port behind the stream block is one of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine } from '../../src/cli/commandLine.js';
import { endpointPolicyFromFlags } from '../../src/cli/endpointPolicyFromFlags.js';
import type { Flags } from '../../src/cli/flags.js';

function flagsOf(args: string[]): Flags {
  const parsed = parseCommandLine(args);
  assert.equal(parsed.kind, 'run');
  return parsed.flags;
}

test('--ssl-passthrough-proxy-port is refused as a backend port with --enable-ssl-passthrough, not without', () => {
  const on = endpointPolicyFromFlags(flagsOf(['--enable-ssl-passthrough', '--ssl-passthrough-proxy-port=1442']), undefined);
  assert.ok(on.guard.porticoPorts.includes(1442));
  assert.ok(endpointPolicyFromFlags(flagsOf(['--enable-ssl-passthrough']), undefined).guard.porticoPorts.includes(442));
  const off = endpointPolicyFromFlags(flagsOf(['--ssl-passthrough-proxy-port=1442']), undefined);
  assert.ok(!off.guard.porticoPorts.includes(1442));
  assert.deepEqual([...on.guard.porticoPorts].sort(), [...off.guard.porticoPorts, 1442].sort());
});
