// The authentication document and the key nginx.conf names: a Secret edit changes
// the document only, so it needs a push, not a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret } from '../../../src/kube/objects.js';
import { authenticationDocument } from '../../../src/dataplane/live/basicAuthState.js';
import { acrossReload } from '../../../src/dataplane/live/acrossReload.js';
import { liveStateOf } from '../../../src/dataplane/live/liveState.js';
import { renderNginxConf } from '../../../src/dataplane/nginx/render/renderNginxConf.js';
import { testContext } from '../nginx/render/fixtures.js';
import { annotated, build, ingress, world } from '../../model/modelTestSupport.js';

function usersSecret(auth: string): Secret {
  return { metadata: { namespace: 'app', name: 'users' }, data: { auth: Buffer.from(auth).toString('base64') } };
}

function modelWith(auth: string | undefined, annotations: Record<string, string> = {}) {
  const accepted = annotated(ingress('web', 'h', [['/api', 'Prefix', 'web']]), {
    'auth-type': 'basic',
    'auth-secret': 'users',
    'auth-realm': 'Team',
    ...annotations,
  });
  return build([accepted], world([], [], auth === undefined ? [] : [usersSecret(auth)])).configuration;
}

const accessKeys = (conf: string): string[] =>
  [...conf.matchAll(/portico_authentication\.access\(\{ key = (\d+) \}\)/g)].map((match) => match[1] ?? '');

test("the document maps the location's key to its type, realm and users; nginx.conf holds only the key", () => {
  const configuration = modelWith('alice:$apr1$s$h\n');
  const document = authenticationDocument(configuration);
  const conf = renderNginxConf(configuration, testContext());
  const keys = accessKeys(conf);
  assert.equal(keys.length, 2, 'the = /api and /api/ locations');
  assert.deepEqual(Object.keys(document.locations), [keys[0]]);
  const entry = document.locations[keys[0] ?? ''];
  assert.equal(entry?.type, 'basic');
  assert.equal(entry?.realm, 'Team');
  assert.deepEqual(document.users[entry?.users ?? ''], { alice: '$apr1$s$h' });
  assert.ok(!conf.includes('$apr1$') && !conf.includes('alice') && !conf.includes('Team'));
  assert.equal(liveStateOf(configuration, new Set()).authentication, JSON.stringify(document));
});

test('a password change or an added user: a new document, the same nginx.conf', () => {
  const before = modelWith('alice:{PLAIN}a\n');
  const after = modelWith('alice:{PLAIN}b\nbob:{PLAIN}c\n');
  assert.equal(renderNginxConf(after, testContext()), renderNginxConf(before, testContext()));
  assert.notEqual(liveStateOf(after, new Set()).authentication, liveStateOf(before, new Set()).authentication);
});

test('another realm or Secret is another key; an unusable Secret leaves the document and renders 503', () => {
  const [key] = accessKeys(renderNginxConf(modelWith('a:b\n'), testContext()));
  const [otherRealm] = accessKeys(renderNginxConf(modelWith('a:b\n', { 'auth-realm': 'Other' }), testContext()));
  assert.notEqual(key, otherRealm);
  const missing = modelWith(undefined);
  assert.deepEqual(authenticationDocument(missing), { locations: {}, users: {} });
  const conf = renderNginxConf(missing, testContext());
  assert.deepEqual(accessKeys(conf), []);
  assert.match(conf, /return 503;/);
});

test("across a reload, the running nginx.conf's keys stay in the document: a realm edit is not a 503 until the reload", () => {
  const running = modelWith('a:b\n');
  const next = modelWith('a:b\n', { 'auth-realm': 'Other' });
  const [runningKey] = accessKeys(renderNginxConf(running, testContext()));
  const [nextKey] = accessKeys(renderNginxConf(next, testContext()));
  const document = authenticationDocument(acrossReload(running, next));
  assert.deepEqual(Object.keys(document.locations).sort(), [runningKey, nextKey].sort());
  assert.equal(document.locations[nextKey ?? '']?.realm, 'Other');
  // Once the reload is done the next configuration's own document is pushed: the old key goes.
  assert.deepEqual(Object.keys(authenticationDocument(next).locations), [nextKey]);
});
