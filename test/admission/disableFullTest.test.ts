// --disable-full-test: the admission review runs the model on the submitted
// Ingress alone, so a problem that only its hosts' other Ingresses cause is
// not found; the path overlap check still compares it with all of them, as
// ingress-nginx's checkOverlap does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reviewIngress } from '../../src/admission/reviewIngress.js';
import { contextWith, ingress } from './admissionTestSupport.js';

const regexNeighbour = ingress('regex', [['a.example', '/api/(.*)', 'ImplementationSpecific']], { 'use-regex': 'true' });
// Not a valid regular expression: served as one because the neighbour turns the host's regex mode on.
const unclosed = () => ingress('plain', [['a.example', '/files(', 'ImplementationSpecific']]);

test('a problem only another Ingress of the host causes is found by the full test, not under --disable-full-test', () => {
  const full = reviewIngress(unclosed(), contextWith([regexNeighbour]));
  assert.equal(full.allowed, false);
  assert.match(full.message ?? '', /served as a regular expression/);

  const alone = reviewIngress(unclosed(), contextWith([regexNeighbour], { disableFullTest: true }));
  assert.equal(alone.allowed, true, alone.message);
});

test('under --disable-full-test the submitted Ingress is still checked, and its paths against every other Ingress', () => {
  const context = contextWith([ingress('owner', [['a.example', '/api', 'Prefix']], {}, { namespace: 'team-a' })], {
    disableFullTest: true,
  });
  const taken = reviewIngress(ingress('thief', [['a.example', '/api', 'Prefix']]), context);
  assert.equal(taken.allowed, false);
  assert.equal(taken.message, 'host "a.example" path "/api" (pathType Prefix) is already served by Ingress team-a/owner');

  const bad = reviewIngress(ingress('bad', [['b.example', '/', 'Prefix']], { 'proxy-body-size': '8m; evil' }), context);
  assert.equal(bad.allowed, false);
  assert.match(bad.message ?? '', /proxy-body-size: invalid value/);
});
