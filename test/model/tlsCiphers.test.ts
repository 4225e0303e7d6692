// The host's ssl-ciphers and ssl-prefer-server-ciphers: each from the oldest Ingress of the host that sets it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { annotated, build, ingress } from './modelTestSupport.js';

function serverOf(result: ReturnType<typeof build>, host: string) {
  const server = result.configuration.servers.find((candidate) => candidate.hostname === host);
  assert.ok(server, `no server ${host}`);
  return server;
}

test('a host without the annotations has no tlsCiphers', () => {
  const result = build([annotated(ingress('plain', 'a.example', [['/', 'Prefix', 'web']]), {})]);
  assert.equal('tlsCiphers' in serverOf(result, 'a.example'), false);
});

test('each value comes from the oldest Ingress of the host that sets it, for every location of the host', () => {
  const oldest = annotated(ingress('oldest', 'a.example', [['/one', 'Prefix', 'web']]), { 'ssl-prefer-server-ciphers': 'false' });
  const middle = annotated(ingress('middle', 'a.example', [['/two', 'Prefix', 'web']]), { 'ssl-ciphers': 'AES128-SHA' });
  const newest = annotated(ingress('newest', 'a.example', [['/three', 'Prefix', 'web']]), {
    'ssl-ciphers': 'HIGH',
    'ssl-prefer-server-ciphers': 'true',
  });
  const other = annotated(ingress('other', 'b.example', [['/', 'Prefix', 'web']]), {});
  // Input order does not matter: age does.
  const result = build([newest, other, middle, oldest]);
  assert.deepEqual(serverOf(result, 'a.example').tlsCiphers, {
    ciphers: { list: 'AES128-SHA', ingress: { namespace: 'app', name: 'middle' } },
    preferServerCiphers: { prefer: false, ingress: { namespace: 'app', name: 'oldest' } },
  });
  assert.equal(serverOf(result, 'b.example').tlsCiphers, undefined);
  assert.equal(serverOf(result, '_').tlsCiphers, undefined);
});
