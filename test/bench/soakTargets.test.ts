// What the soak counts as a failure, target by target (bench/support/soakTargets.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OK, PENDING, type SoakTarget } from '../../bench/support/soakLoad.js';
import { IngressFile, SOAK_ROLES, type SoakRole } from '../../bench/support/soakManifests.js';
import { FAILURE, soakTargets, type SoakBackends } from '../../bench/support/soakTargets.js';

const backends: SoakBackends = {
  stable: [{ instance: 'stable-1', address: '198.18.1.3' }],
  round: [{ instance: 'round-1', address: '198.18.1.4' }],
  churn: [[{ instance: 'churn-a1', address: '198.18.1.5' }], [{ instance: 'churn-b1', address: '198.18.1.6' }]],
};

function sample(): Record<SoakRole, IngressFile> {
  const files = SOAK_ROLES.map((role) => {
    const text = `kind: Ingress\nmetadata:\n  name: ${role}\nspec:\n  rules:\n    - host: ${role}.soak.test\n      http:\n        paths: []\n`;
    return [role, new IngressFile(`/nonexistent/${role}.yaml`, text)] as const;
  });
  return Object.fromEntries(files) as Record<SoakRole, IngressFile>;
}

const byName = (targets: readonly SoakTarget[], name: string): SoakTarget => targets.find((target) => target.name === name)!;
const from = (instance: string) => ({ status: 200, instance });

test('a stable host: only a 200 from its own backends is right', () => {
  const plain = byName(soakTargets(sample(), backends).all, 'plain /');
  assert.equal(plain.host, 'plain.soak.test');
  assert.equal(plain.judge(from('stable-1'), '/', 0), OK);
  assert.equal(plain.judge({ status: 404, instance: undefined }, '/', 0), FAILURE.notFound);
  assert.equal(plain.judge({ status: 502, instance: undefined }, '/', 0), FAILURE.serverError);
  assert.equal(plain.judge({ error: 'ECONNRESET: socket hang up' }, '/', 0), FAILURE.connection);
  assert.equal(plain.judge(from('churn-a1'), '/', 0), FAILURE.wrong);
  assert.equal(plain.judge({ status: 200, instance: undefined }, '/', 0), FAILURE.wrong);
  assert.equal(plain.judge({ status: 403, instance: undefined }, '/', 0), FAILURE.wrong);
});

test('the churned host: either backend set is right', () => {
  const churned = byName(soakTargets(sample(), backends).all, 'churned /');
  assert.equal(churned.judge(from('churn-a1'), '/', 0), OK);
  assert.equal(churned.judge(from('churn-b1'), '/', 0), OK);
  assert.equal(churned.judge(from('stable-1'), '/', 0), FAILURE.wrong);
});

test("the round path: `/`'s backend before it is served and after its removal, never in between", () => {
  const { all, editedPath } = soakTargets(sample(), backends);
  const roundPath = byName(all, 'edited: the round path');
  const writtenAt = performance.now();
  editedPath.moveTo('/soak-round-1', writtenAt);
  assert.equal(roundPath.path(), '/soak-round-1');
  // Not applied yet: the host's `/` takes it.
  assert.equal(roundPath.judge(from('stable-1'), '/soak-round-1', writtenAt + 1), PENDING);
  // Served by its own backend from here on.
  assert.equal(roundPath.judge(from('round-1'), '/soak-round-1', writtenAt + 2), OK);
  const afterServed = performance.now() + 1;
  assert.equal(roundPath.judge(from('stable-1'), '/soak-round-1', afterServed), FAILURE.lostRoute);
  assert.equal(roundPath.judge({ status: 404, instance: undefined }, '/soak-round-1', afterServed), FAILURE.notFound);
  // Removed by the next round: `/` takes it again.
  const removedAt = afterServed + 1;
  editedPath.moveTo('/soak-round-2', removedAt);
  assert.equal(roundPath.judge(from('stable-1'), '/soak-round-1', removedAt + 1), PENDING);
  assert.equal(roundPath.judge(from('stable-1'), '/soak-round-2', removedAt + 1), PENDING);
});
