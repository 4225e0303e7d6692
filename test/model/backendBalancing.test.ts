import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { accepted, annotated, backendOf, build, ingress, problemsOf, service, world } from './modelTestSupport.js';

const ROUND_ROBIN = { algorithm: 'round_robin', hashBy: undefined, affinity: undefined };

test('a backend takes the balancing of the Ingress routing to it', () => {
  const result = build([
    annotated(ingress('a', 'h', [['/', 'Prefix', 'web']]), {
      'load-balance': 'ewma',
      'upstream-hash-by': '$remote_addr',
      affinity: 'cookie',
      'affinity-mode': 'persistent',
    }),
  ]);
  const balancing = backendOf(result, 'app/web:80')?.balancing;
  assert.equal(balancing?.algorithm, 'ewma');
  assert.deepEqual(balancing?.hashBy, { key: '$remote_addr', subset: false, subsetSize: 3 });
  assert.equal(balancing?.affinity?.mode, 'persistent');
  assert.equal(backendOf(result, 'app/web:80')?.canary, undefined);
  assert.deepEqual(result.problems, []);
});

test("a backend no Ingress routes to balances with the ConfigMap's load-balance", () => {
  const lookup = world([service('fallback', [{ port: 8080 }])]);
  const result = build([], lookup, { defaultBackendService: 'app/fallback', settings: { ...DEFAULT_SETTINGS, loadBalance: 'ewma' } });
  assert.deepEqual(backendOf(result, 'app/fallback:8080')?.balancing, { ...ROUND_ROBIN, algorithm: 'ewma' });
});

test('the oldest Ingress routing to a backend sets its balancing; a newer one that differs is told', () => {
  const older = accepted(ingress('older', 'a.example', [['/', 'Prefix', 'web']]));
  const newer = annotated(
    ingress('newer', 'b.example', [
      ['/x', 'Prefix', 'web'],
      ['/y', 'Exact', 'web'],
    ]),
    { 'load-balance': 'ewma' },
  );
  for (const order of [
    [older, newer],
    [newer, older],
  ]) {
    const result = build(order);
    assert.deepEqual(backendOf(result, 'app/web:80')?.balancing, ROUND_ROBIN);
    assert.deepEqual(problemsOf(result), ['newer BalancingConflict'], 'one problem, however many of its paths route there');
    assert.match(result.problems[0]?.message ?? '', /^backend app\/web:80 keeps .* of the older Ingress app\/older$/);
  }
});

test('a newer Ingress asking for the same balancing is not told', () => {
  const settings = { 'upstream-hash-by': '$uri' };
  const result = build([
    annotated(ingress('older', 'a.example', [['/', 'Prefix', 'web']]), settings),
    annotated(ingress('newer', 'b.example', [['/', 'Prefix', 'web']]), settings),
  ]);
  assert.equal(backendOf(result, 'app/web:80')?.balancing.hashBy?.key, '$uri');
  assert.deepEqual(result.problems, []);
});

test("an Ingress's spec.defaultBackend is a route to its backend", () => {
  const result = build([
    annotated(ingress('catch-all', undefined, [], { defaultBackend: { service: { name: 'web', port: { number: 80 } } } }), {
      'load-balance': 'ewma',
    }),
    accepted(ingress('later', 'h', [['/', 'Prefix', 'web']])),
  ]);
  assert.equal(backendOf(result, 'app/web:80')?.balancing.algorithm, 'ewma');
  assert.deepEqual(problemsOf(result), ['later BalancingConflict']);
});

test("a canary Ingress's own balancing counts by age like any other", () => {
  const canary = annotated(ingress('canary', 'h', [['/', 'Prefix', 'web-canary']]), { canary: 'true', 'load-balance': 'ewma' });
  const primary = accepted(ingress('primary', 'h', [['/', 'Prefix', 'web']]));
  const other = accepted(ingress('other', 'o', [['/', 'Prefix', 'web-canary']]));
  const result = build([other, primary, canary]);
  assert.equal(backendOf(result, 'app/web-canary:80')?.balancing.algorithm, 'ewma', 'the canary Ingress is the oldest route');
  assert.deepEqual(problemsOf(result), ['other BalancingConflict']);
});

test('balancing is live state: it stays off the locations, so nginx.conf does not change with it', () => {
  const result = build([annotated(ingress('a', 'h', [['/', 'Prefix', 'web']]), { affinity: 'cookie', 'load-balance': 'ewma' })]);
  for (const server of result.configuration.servers) {
    for (const location of server.locations) {
      // The catch-all's default backend also has its access log off (enable-access-log-for-default-backend).
      const logs = server.hostname === '_' ? ['logs'] : [];
      assert.deepEqual(Object.keys(location.annotations).sort(), ['backendProtocol', 'ipAccess', ...logs, 'proxy', 'rewrite']);
    }
  }
});
