// The auth Secret's users as the model reads them, and what an unusable Secret does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret } from '../../src/kube/objects.js';
import { htdigestEntries, htpasswdEntries } from '../../src/model/basicAuthSecret.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { annotated, build, ingress, problemsOf, world } from './modelTestSupport.js';

function secret(namespace: string, name: string, data: Record<string, string>): Secret {
  return {
    metadata: { namespace, name },
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
  };
}

function authOf(result: ReturnType<typeof build>) {
  return result.configuration.servers.find((server) => server.hostname === 'h')?.locations.find((location) => location.path === '/api')
    ?.annotations.basicAuth;
}

const basicIngress = (annotations: Record<string, string>) =>
  annotated(ingress('web', 'h', [['/api', 'Prefix', 'web']]), { 'auth-type': 'basic', ...annotations });

test('htpasswd lines as nginx reads them: first entry of a user wins, comments and lines without ":" skipped, the hash ends at ":"', () => {
  assert.deepEqual(htpasswdEntries('# comment\nalice:$apr1$x$y\r\nbob:{PLAIN}pw:comment field\n\nnocolon\nalice:second\ncarol:\n'), [
    ['alice', '$apr1$x$y'],
    ['bob', '{PLAIN}pw'],
    ['carol', ''],
  ]);
  assert.deepEqual(htpasswdEntries(''), []);
});

test('htdigest lines: user:realm:HA1 keyed by user:realm; other shapes skipped', () => {
  assert.deepEqual(htdigestEntries('alice:r1:aa\nalice:r2:bb\nbad:line\nx:y:z:w\nalice:r1:cc\n'), [
    ['alice:r1', 'aa'],
    ['alice:r2', 'bb'],
  ]);
});

test('auth-file: the users of key "auth"; the id changes with the content', () => {
  const lookup = (auth: string) => world([], [], [secret('app', 'users', { auth })]);
  const first = authOf(build([basicIngress({ 'auth-secret': 'users' })], lookup('alice:{PLAIN}a\n')));
  assert.deepEqual(first?.users?.entries, { alice: '{PLAIN}a' });
  assert.equal(first?.users?.secret, 'app/users');
  const second = authOf(build([basicIngress({ 'auth-secret': 'users' })], lookup('alice:{PLAIN}b\n')));
  assert.notEqual(first?.users?.id, second?.users?.id);
  const again = authOf(build([basicIngress({ 'auth-secret': 'users' })], lookup('alice:{PLAIN}a\n')));
  assert.equal(first?.users?.id, again?.users?.id);
});

test('auth-map: one user per key; a user named like an Object property is just a user', () => {
  const lookup = world([], [], [secret('app', 'map', { bob: '{SHA}x', ['__proto__']: '{PLAIN}p', alice: '$2y$05$abc' })]);
  const auth = authOf(build([basicIngress({ 'auth-secret': 'map', 'auth-secret-type': 'auth-map' })], lookup));
  assert.deepEqual(JSON.parse(JSON.stringify(auth?.users?.entries)), { ['__proto__']: '{PLAIN}p', alice: '$2y$05$abc', bob: '{SHA}x' });
});

test('an unusable Secret leaves the location without users (503) and warns on the Ingress', () => {
  const cases: Array<[annotations: Record<string, string>, secrets: Secret[], message: RegExp]> = [
    [{}, [], /auth-secret is not set/],
    [{ 'auth-secret': 'missing' }, [], /auth-secret app\/missing not found/],
    [{ 'auth-secret': 'users' }, [secret('app', 'users', { other: 'x' })], /has no key "auth"/],
    [{ 'auth-secret': 'team/users' }, [secret('team', 'users', { auth: 'a:b\n' })], /another namespace.*allow-cross-namespace-resources/],
  ];
  for (const [annotations, secrets, message] of cases) {
    const result = build([basicIngress(annotations)], world([], [], secrets));
    const auth = authOf(result);
    assert.ok(auth, 'authentication stays configured');
    assert.equal(auth.users, undefined);
    assert.deepEqual(problemsOf(result), ['web AuthSecretUnusable']);
    assert.equal(result.problems[0]?.severity, 'warning');
    assert.match(result.problems[0]?.message ?? '', message);
  }
});

test("another namespace's Secret with allow-cross-namespace-resources", () => {
  const result = build(
    [basicIngress({ 'auth-secret': 'team/users' })],
    world([], [], [secret('team', 'users', { auth: 'a:{PLAIN}b\n' })]),
    {
      settings: { ...DEFAULT_SETTINGS, allowCrossNamespaceResources: true },
    },
  );
  assert.deepEqual(authOf(result)?.users?.entries, { a: '{PLAIN}b' });
  assert.deepEqual(problemsOf(result), []);
});
