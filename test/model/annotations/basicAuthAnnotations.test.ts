import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

test('no auth-type: no authentication', () => {
  assert.equal(accepted({}).value.location.basicAuth, undefined);
});

test('auth-type with its settings; defaults as ingress-nginx: auth-file, realm ""', () => {
  assert.deepEqual(accepted({ 'auth-type': 'basic', 'auth-secret': 'users' }).value.location.basicAuth, {
    type: 'basic',
    realm: '',
    secret: { namespace: undefined, name: 'users' },
    secretType: 'auth-file',
    users: undefined,
  });
  assert.deepEqual(
    accepted({ 'auth-type': 'digest', 'auth-secret': 'other/users', 'auth-secret-type': 'auth-map', 'auth-realm': 'Team A: /admin ~x' })
      .value.location.basicAuth,
    { type: 'digest', realm: 'Team A: /admin ~x', secret: { namespace: 'other', name: 'users' }, secretType: 'auth-map', users: undefined },
  );
});

test('auth-type without auth-secret is kept: the model refuses its locations (503), as ingress-nginx', () => {
  assert.equal(accepted({ 'auth-type': 'basic' }).value.location.basicAuth?.secret, undefined);
});

test('the other auth settings without auth-type are ignored with a warning', () => {
  const { value, warnings } = accepted({ 'auth-secret': 'users', 'auth-realm': 'r', 'auth-secret-type': 'auth-map' });
  assert.equal(value.location.basicAuth, undefined);
  assert.deepEqual(
    warnings,
    ['auth-secret', 'auth-secret-type', 'auth-realm'].map(
      (name) => `annotation ${PREFIX}/${name}: ignored: it has no effect without auth-type`,
    ),
  );
});

test('invalid and hostile values are refused, naming the annotation', () => {
  for (const value of ['Basic', 'basicx', 'xbasic', 'ntlm', 'basic;', 'digest basic']) {
    assertRefusedWith({ 'auth-type': value, 'auth-secret': 'users' }, [`${PREFIX}/auth-type`, 'one of basic, digest']);
  }
  for (const value of ['auth', 'Auth-File', 'auth-file,auth-map', 'htpasswd']) {
    assertRefusedWith({ 'auth-type': 'basic', 'auth-secret': 'users', 'auth-secret-type': value }, [`${PREFIX}/auth-secret-type`]);
  }
  for (const value of ['a/b/c', '../users', 'Users', 'ns/', '/users', 'users;', 'a b', '$(id)', 'x'.repeat(254)]) {
    assertRefusedWith({ 'auth-type': 'basic', 'auth-secret': value }, [`${PREFIX}/auth-secret`, 'namespace/name']);
  }
  for (const value of ['say "hi"', 'back\\slash', 'a,b', 'a;b', '{x}', '$host', 'ünï', "it's"]) {
    assertRefusedWith({ 'auth-type': 'basic', 'auth-secret': 'users', 'auth-realm': value }, [`${PREFIX}/auth-realm`, 'letters, digits']);
  }
});

test("risk levels are ingress-nginx's: auth-secret and auth-realm Medium, auth-type and auth-secret-type Low", () => {
  assertRefusedWith({ 'auth-type': 'basic', 'auth-secret': 'users' }, [`${PREFIX}/auth-secret`, 'risk level Medium'], {
    annotationsRiskLevel: 'Low',
  });
  assertRefusedWith({ 'auth-type': 'basic', 'auth-realm': 'r' }, [`${PREFIX}/auth-realm`, 'risk level Medium'], {
    annotationsRiskLevel: 'Low',
  });
  assert.ok(accepted({ 'auth-type': 'basic', 'auth-secret-type': 'auth-map' }, { annotationsRiskLevel: 'Low' }).value.location.basicAuth);
});
