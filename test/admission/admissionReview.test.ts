import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admissionResponse, parseAdmissionReview } from '../../src/admission/admissionReview.js';

const UID = '705ab4f5-6393-11e8-b7cc-42010a800002';

function review(request: Record<string, unknown> = {}, object: unknown = ingressObject()): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: UID,
      kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
      resource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
      operation: 'CREATE',
      name: 'web',
      namespace: 'app',
      userInfo: { username: 'someone' },
      object,
      ...request,
    },
  };
}

function ingressObject(metadata: Record<string, unknown> = {}, spec: unknown = { rules: [{ host: 'a.example' }] }): unknown {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: 'app', ...metadata }, spec };
}

function error(body: unknown): string {
  const parsed = parseAdmissionReview(body);
  assert.equal(parsed.ok, false, JSON.stringify(parsed));
  return parsed.ok ? '' : parsed.error;
}

function malformedReason(body: unknown): string {
  const parsed = parseAdmissionReview(body);
  assert.ok(parsed.ok && parsed.request.kind === 'malformed', JSON.stringify(parsed));
  return parsed.request.reason;
}

test('a review of an Ingress CREATE yields the Ingress, its uid and the dry-run flag', () => {
  const parsed = parseAdmissionReview(review({ dryRun: true }));
  assert.ok(parsed.ok && parsed.request.kind === 'ingress');
  assert.equal(parsed.request.uid, UID);
  assert.equal(parsed.request.dryRun, true);
  assert.equal(parsed.request.operation, 'CREATE');
  assert.equal(parsed.request.ingress.metadata?.name, 'web');
  assert.equal(parsed.request.ingress.spec?.rules?.[0]?.host, 'a.example');
});

test('the name and namespace of a CREATE come from the request when the object has none (generateName)', () => {
  const parsed = parseAdmissionReview(review({}, { metadata: { generateName: 'web-' }, spec: {} }));
  assert.ok(parsed.ok && parsed.request.kind === 'ingress');
  assert.deepEqual([parsed.request.ingress.metadata?.namespace, parsed.request.ingress.metadata?.name], ['app', 'web']);
});

test('anything but an admission.k8s.io/v1 AdmissionReview is an error, never a throw', () => {
  for (const body of [
    null,
    42,
    'review',
    [],
    {},
    { ...review(), apiVersion: 'admission.k8s.io/v1beta1' },
    { ...review(), kind: 'Review' },
  ]) {
    assert.match(error(body), /^not an admission\.k8s\.io\/v1 AdmissionReview/);
  }
  assert.match(error({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), /request/);
});

test('the uid must be a short token of UID characters, and is required', () => {
  const { request } = review() as { request: Record<string, unknown> };
  delete request['uid'];
  assert.match(error({ ...review(), request }), /request\.uid/);
  for (const uid of [42, '', 'x'.repeat(65), '../../etc/passwd', '<script>', 'a b', { $ne: 1 }, ['a']]) {
    assert.match(error(review({ uid })), /request\.uid/, JSON.stringify(uid));
  }
});

test('wrong types anywhere the model reads are refused with their path, not their value', () => {
  const secret = 'S3CRET-VALUE';
  const cases: [unknown, RegExp][] = [
    [ingressObject({ annotations: { a: 42 } }), /metadata\.annotations\.a/],
    [ingressObject({ annotations: { __proto__x: secret } }), /metadata\.annotations/],
    [ingressObject({}, { rules: [{ host: 7 }] }), /spec\.rules\.0\.host/],
    [ingressObject({}, { rules: 'all' }), /spec\.rules/],
    [ingressObject({}, { rules: [{ http: { paths: [{ path: '/', pathType: secret, backend: {} }] } }] }), /pathType/],
    [ingressObject({}, { tls: [{ hosts: [secret, 1] }] }), /spec\.tls\.0\.hosts\.1/],
    [ingressObject({}, { defaultBackend: { service: { name: 's', port: { number: 1e9 } } } }), /defaultBackend\.service\.port\.number/],
    [{ metadata: 'x' }, /metadata/],
  ];
  for (const [object, where] of cases) {
    const reason = malformedReason(review({}, object));
    assert.match(reason, /^invalid Ingress: /);
    assert.match(reason, where);
    assert.doesNotMatch(reason, new RegExp(secret));
  }
});

test('names and namespaces that no API server admits are refused', () => {
  assert.match(malformedReason(review({}, ingressObject({ name: '../../x' }))), /metadata\.name/);
  assert.match(malformedReason(review({}, ingressObject({ name: 'A'.repeat(300) }))), /metadata\.name/);
  assert.match(malformedReason(review({}, ingressObject({ namespace: 'Kube System' }))), /metadata\.namespace/);
  assert.match(malformedReason(review({ namespace: 'other' })), /request\.namespace and metadata\.namespace differ/);
  assert.match(malformedReason(review({ name: undefined }, { metadata: {}, spec: {} })), /metadata\.name/);
});

test('an annotation key named __proto__ cannot reach an object prototype', () => {
  const body = JSON.parse(
    `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"networking.k8s.io","version":"v1","kind":"Ingress"},"operation":"CREATE","object":{"metadata":{"name":"x","namespace":"y","annotations":{"__proto__":{"polluted":"yes"}}}}}}`,
  ) as unknown;
  const parsed = parseAdmissionReview(body);
  assert.ok(parsed.ok && parsed.request.kind === 'ingress');
  const annotations = parsed.request.ingress.metadata?.annotations ?? {};
  assert.equal(Object.getPrototypeOf(annotations), Object.prototype);
  assert.equal((annotations as Record<string, unknown>)['polluted'], undefined);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

test('other kinds are denied; DELETE and CONNECT pass unchecked', () => {
  assert.match(malformedReason(review({ kind: { group: '', version: 'v1', kind: 'Secret' } })), /only networking\.k8s\.io\/v1 Ingresses/);
  assert.match(malformedReason(review({ kind: { group: 'networking.k8s.io', version: 'v1beta1', kind: 'Ingress' } })), /only/);
  const deleted = parseAdmissionReview(review({ operation: 'DELETE', object: undefined }));
  assert.ok(deleted.ok && deleted.request.kind === 'unchecked');
  assert.match(error(review({ operation: 'PATCH' })), /request\.operation/);
});

test('a huge review is bounded: many rules and long strings are refused without inspecting them all', () => {
  const rules = Array.from({ length: 10_001 }, () => ({ host: 'a.example' }));
  assert.match(malformedReason(review({}, ingressObject({}, { rules }))), /spec\.rules/);
  const issues = Array.from({ length: 50 }, (_, i) => ({ host: i }));
  const reason = malformedReason(review({}, ingressObject({}, { rules: issues })));
  assert.match(reason, /\(and 47 more\)$/);
  assert.ok(reason.length < 1_000);
});

test('the response echoes the uid and carries the status only when denied, warnings only when any', () => {
  assert.deepEqual(admissionResponse(UID, { allowed: true, warnings: [] }), {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: UID, allowed: true },
  });
  assert.deepEqual(admissionResponse(UID, { allowed: false, message: 'no', warnings: ['w'] }), {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: UID, allowed: false, status: { code: 400, reason: 'BadRequest', message: 'no' }, warnings: ['w'] },
  });
  const many = admissionResponse(UID, { allowed: true, warnings: Array.from({ length: 30 }, () => 'x'.repeat(500)) }) as {
    response: { warnings: string[] };
  };
  assert.equal(many.response.warnings.length, 20);
  assert.ok(many.response.warnings.every((warning) => warning.length <= 200));
});
