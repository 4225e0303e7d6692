import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PathOwnership } from '../../src/admission/pathOwnership.js';
import { IngressAcceptance } from '../../src/controller/ingressAcceptance.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { ingress, PREFIX } from './admissionTestSupport.js';

const owners = (index: PathOwnership, host: string) => index.pathsOn(host, '').map((owned) => `${owned.owner} ${owned.path}`);

test('after a sync only the Ingresses whose accepted version changed are re-indexed', () => {
  const acceptance = new IngressAcceptance(PREFIX);
  const a = ingress('a', [['x.example', '/a', 'Prefix']]);
  const b = ingress('b', [
    ['x.example', '/b', 'Prefix'],
    ['y.example', '/', 'Prefix'],
  ]);
  const index = new PathOwnership();
  assert.deepEqual(index.update(acceptance.update([a, b], DEFAULT_SETTINGS).accepted), { removed: 0, added: 2 });
  assert.deepEqual(owners(index, 'x.example'), ['app/a /a', 'app/b /b']);
  assert.deepEqual(index.update(acceptance.update([a, b], DEFAULT_SETTINGS).accepted), { removed: 0, added: 0 }, 'nothing changed');

  const movedB = { ...ingress('b', [['z.example', '/b', 'Prefix']]), metadata: { ...b.metadata, resourceVersion: '2' } };
  assert.deepEqual(index.update(acceptance.update([a, movedB], DEFAULT_SETTINGS).accepted), { removed: 1, added: 1 });
  assert.deepEqual(owners(index, 'x.example'), ['app/a /a']);
  assert.deepEqual(owners(index, 'y.example'), []);
  assert.deepEqual(owners(index, 'z.example'), ['app/b /b']);

  assert.deepEqual(index.update(acceptance.update([movedB], DEFAULT_SETTINGS).accepted), { removed: 1, added: 0 }, 'a deleted');
  assert.deepEqual(owners(index, 'x.example'), []);
  assert.deepEqual(index.pathsOn('z.example', 'app/b'), [], 'the version under review is left out');
});
