import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_CONTAINMENT_ROUNDS, RefusalContainment, type Attempt } from '../../src/controller/refusalContainment.js';
import type { ConfigMap, Ingress } from '../../src/kube/objects.js';
import type { AcceptedIngress } from '../../src/model/buildConfiguration.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { parseIngressAnnotations } from '../../src/model/annotations/parseIngressAnnotations.js';

function accepted(name: string, resourceVersion: string): AcceptedIngress {
  const ingress: Ingress = { metadata: { namespace: 'app', name, resourceVersion } };
  const annotations = parseIngressAnnotations(undefined, { prefix: 'nginx.ingress.kubernetes.io', settings: DEFAULT_SETTINGS });
  assert.ok(annotations.ok);
  return { ingress, annotations: annotations.value };
}

const configMap: ConfigMap = { metadata: { namespace: 'portico', name: 'settings', resourceVersion: '7' } };
const customSettings = { source: configMap, settings: { ...DEFAULT_SETTINGS, proxyBodySize: '2m' } };
const refusedBy = (name: string) => ({
  outcome: 'rejected' as const,
  error: 'unknown directive',
  origin: { kind: 'ingress' as const, ingress: { namespace: 'app', name } },
});

test('an Ingress version nginx never ran is left out, with the version it ran as the fallback', () => {
  const containment = new RefusalContainment();
  const v1 = accepted('web', '1');
  containment.accepted({ accepted: [v1], settings: { source: undefined, settings: DEFAULT_SETTINGS } });
  const v2 = accepted('web', '2');
  const decision = containment.contain(refusedBy('web'), { accepted: [v2], settings: { source: undefined, settings: DEFAULT_SETTINGS } });
  assert.deepEqual(decision, { kind: 'ingress', ingress: v2.ingress, fallback: v1 });
  const fresh = accepted('new', '1');
  assert.deepEqual(
    containment.contain(refusedBy('new'), { accepted: [v1, fresh], settings: { source: undefined, settings: DEFAULT_SETTINGS } }),
    {
      kind: 'ingress',
      ingress: fresh.ingress,
      fallback: undefined,
    },
  );
});

test('a version nginx ran blames what changed since: the settings, or nothing', () => {
  const containment = new RefusalContainment();
  const v1 = accepted('web', '1');
  const defaults = { source: undefined, settings: DEFAULT_SETTINGS };
  containment.accepted({ accepted: [v1], settings: defaults });
  assert.deepEqual(containment.contain(refusedBy('web'), { accepted: [v1], settings: customSettings }), {
    kind: 'configMap',
    source: configMap,
    fallback: defaults,
  });
  assert.equal(containment.contain(refusedBy('web'), { accepted: [v1], settings: defaults }).kind, 'none');
});

test('lines of Portico, of no file of ours, or of settings already fallen back to contain nothing', () => {
  const containment = new RefusalContainment();
  const attempt: Attempt = { accepted: [], settings: { source: configMap, settings: DEFAULT_SETTINGS } };
  assert.equal(containment.contain({ outcome: 'rejected', error: 'bind() failed' }, attempt).kind, 'none');
  assert.equal(containment.contain({ outcome: 'rejected', error: 'x', origin: { kind: 'portico' } }, attempt).kind, 'none');
  // No configuration ran yet: the fallback is the defaults, which this attempt already has.
  assert.equal(containment.contain({ outcome: 'rejected', error: 'x', origin: { kind: 'settings' } }, attempt).kind, 'none');
  assert.equal(
    containment.contain({ outcome: 'rejected', error: 'x', origin: { kind: 'settings' } }, { ...attempt, settings: customSettings }).kind,
    'configMap',
  );
  const noConfigMap = { source: undefined, settings: { ...DEFAULT_SETTINGS } };
  assert.equal(
    containment.contain({ outcome: 'rejected', error: 'x', origin: { kind: 'settings' } }, { ...attempt, settings: noConfigMap }).kind,
    'none',
  );
  assert.equal(containment.contain(refusedBy('gone'), attempt).kind, 'none');
});

test('a run of containments stops allowing retries until nginx accepts a configuration', () => {
  const containment = new RefusalContainment();
  const attempt = (name: string): Attempt => ({
    accepted: [accepted(name, '1')],
    settings: { source: undefined, settings: DEFAULT_SETTINGS },
  });
  for (let round = 1; round <= MAX_CONTAINMENT_ROUNDS; round++) {
    assert.equal(containment.mayRetry, true, `before round ${round}`);
    assert.equal(containment.contain(refusedBy(`i${round}`), attempt(`i${round}`)).kind, 'ingress');
  }
  assert.equal(containment.mayRetry, false);
  containment.accepted(attempt('ok'));
  assert.equal(containment.mayRetry, true);
});
