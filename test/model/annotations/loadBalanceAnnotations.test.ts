import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

test('load-balance defaults to the ConfigMap value', () => {
  assert.equal(accepted({}).value.balancing.algorithm, 'round_robin');
  assert.equal(accepted({}, { loadBalance: 'ewma' }).value.balancing.algorithm, 'ewma');
});

test('load-balance takes round_robin and ewma, over the ConfigMap value', () => {
  assert.equal(accepted({ 'load-balance': 'ewma' }).value.balancing.algorithm, 'ewma');
  assert.equal(accepted({ 'load-balance': 'round_robin' }, { loadBalance: 'ewma' }).value.balancing.algorithm, 'round_robin');
});

test('load-balance refuses other values, case-sensitively as ingress-nginx', () => {
  for (const text of ['EWMA', 'Round_Robin', 'least_conn', 'random', 'ip_hash', 'round_robin;']) {
    assertRefusedWith({ 'load-balance': text }, ['load-balance', `invalid value ${JSON.stringify(text)}`, 'one of round_robin, ewma']);
  }
});

test("load-balance refuses ingress-nginx's chash and sticky values, naming the annotations that select them", () => {
  for (const text of ['chash', 'chashsubset', 'sticky_balanced', 'sticky_persistent']) {
    assertRefusedWith({ 'load-balance': text }, ['upstream-hash-by annotations', 'from affinity and affinity-mode']);
  }
});

test('load-balance is Low risk: admitted at every level', () => {
  assert.equal(accepted({ 'load-balance': 'ewma' }, { annotationsRiskLevel: 'Low' }).value.balancing.algorithm, 'ewma');
});

test('load-balance beside affinity or upstream-hash-by is ignored with a warning naming what wins', () => {
  const withAffinity = accepted({ 'load-balance': 'ewma', affinity: 'cookie', 'upstream-hash-by': '$remote_addr' });
  assert.deepEqual(withAffinity.warnings, [`annotation ${PREFIX}/load-balance: ignored: affinity chooses the endpoint instead`]);
  const withHash = accepted({ 'load-balance': 'ewma', 'upstream-hash-by': '$remote_addr' });
  assert.deepEqual(withHash.warnings, [`annotation ${PREFIX}/load-balance: ignored: upstream-hash-by chooses the endpoint instead`]);
  assert.deepEqual(accepted({ 'load-balance': 'ewma' }).warnings, []);
  assert.deepEqual(accepted({ affinity: 'cookie' }).warnings, [], 'no warning when load-balance is not set');
});
