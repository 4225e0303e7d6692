import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IngressAcceptance } from '../../src/controller/ingressAcceptance.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import type { Ingress } from '../../src/kube/objects.js';

const prefix = 'nginx.ingress.kubernetes.io';

function version(resourceVersion: string, annotations: Record<string, string>, path = '/'): Ingress {
  return {
    metadata: { name: 'web', namespace: 'app', resourceVersion, annotations },
    spec: {
      rules: [{ host: 'h', http: { paths: [{ path, pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }],
    },
  };
}

test('an invalid new version is refused and the last good one keeps serving', () => {
  const acceptance = new IngressAcceptance(prefix);
  const good = version('1', { [`${prefix}/proxy-body-size`]: '8m' });
  assert.equal(acceptance.update([good], DEFAULT_SETTINGS).accepted[0]?.annotations.location.proxy.bodySize, '8m');
  const bad = version('2', { [`${prefix}/proxy-body-size`]: '8m; evil' });
  const result = acceptance.update([bad], DEFAULT_SETTINGS);
  assert.equal(result.accepted[0]?.ingress, good, 'version 1 still served');
  assert.equal(result.refused.length, 1);
  assert.equal(result.refused[0]?.servingPrevious, true);
  assert.match(result.refused[0]?.errors.join() ?? '', /proxy-body-size/);
  assert.deepEqual(acceptance.update([bad], DEFAULT_SETTINGS).refused, [], 'the same refused version is not reported again');
});

test('a first version that is invalid is not served at all', () => {
  const acceptance = new IngressAcceptance(prefix);
  const result = acceptance.update([version('1', { [`${prefix}/ssl-redirect`]: 'maybe' })], DEFAULT_SETTINGS);
  assert.deepEqual(result.accepted, []);
  assert.equal(result.refused[0]?.servingPrevious, false);
});

test('strict path validation refuses regex characters in Prefix paths, newlines anywhere', () => {
  const acceptance = new IngressAcceptance(prefix);
  assert.equal(acceptance.update([version('1', {}, '/api/(.*)')], DEFAULT_SETTINGS).accepted.length, 0);
  assert.equal(acceptance.update([version('2', {}, '/ok\n}')], { ...DEFAULT_SETTINGS, strictValidatePathType: false }).accepted.length, 0);
  assert.equal(
    acceptance.update([version('3', {}, '/api/(.*)')], { ...DEFAULT_SETTINGS, strictValidatePathType: false }).accepted.length,
    1,
  );
});

test('new global settings re-check every served version', () => {
  const acceptance = new IngressAcceptance(prefix);
  const snippet = version('1', { [`${prefix}/configuration-snippet`]: 'return 200;' });
  const permissive = { ...DEFAULT_SETTINGS, allowSnippetAnnotations: true, annotationsRiskLevel: 'Critical' as const };
  assert.equal(acceptance.update([snippet], permissive).accepted.length, 1);
  const result = acceptance.update([snippet], { ...DEFAULT_SETTINGS });
  assert.equal(result.accepted.length, 0, 'refused once snippets are turned off');
  assert.match(result.refused[0]?.errors.join() ?? '', /configuration-snippet/);
});

test('deleted Ingresses are forgotten', () => {
  const acceptance = new IngressAcceptance(prefix);
  acceptance.update([version('1', {})], DEFAULT_SETTINGS);
  assert.deepEqual(acceptance.update([], DEFAULT_SETTINGS).accepted, []);
});

test('a version nginx refused is quarantined until a new version arrives, serving what nginx ran before', () => {
  const acceptance = new IngressAcceptance(prefix);
  const first = version('1', {});
  const ran = acceptance.update([first], DEFAULT_SETTINGS).accepted[0];
  const refused = version('2', {}, '/v2');
  assert.equal(acceptance.update([refused], DEFAULT_SETTINGS).accepted[0]?.ingress, refused, 'valid, so accepted');
  assert.equal(acceptance.quarantine(refused, ran), true);
  assert.equal(acceptance.quarantine(refused, ran), false, 'once per version');
  assert.equal(acceptance.update([refused], DEFAULT_SETTINGS).accepted[0]?.ingress, first);
  // New settings re-check the fallback, not the refused version.
  const strict = { ...DEFAULT_SETTINGS, proxyBodySize: '2m' };
  assert.equal(acceptance.update([refused], strict).accepted[0]?.ingress, first);
  // A new version is judged afresh.
  const next = version('3', {}, '/v3');
  assert.equal(acceptance.update([next], strict).accepted[0]?.ingress, next);
  assert.equal(acceptance.quarantine(refused, ran), false, 'no longer the version in hand');
  // Never accepted by nginx: nothing serves.
  assert.equal(acceptance.quarantine(next, undefined), true);
  assert.deepEqual(acceptance.update([next], strict).accepted, []);
});

test('an Ingress asking for regex mode is refused for a path PCRE would not compile as meant, naming the path', () => {
  const regexVersion = (resourceVersion: string, path: string, annotations: Record<string, string>): Ingress => {
    const base = version(resourceVersion, annotations, path);
    const rule = base.spec!.rules![0]!;
    return { ...base, spec: { rules: [{ ...rule, http: { paths: [{ ...rule.http!.paths[0]!, pathType: 'ImplementationSpecific' }] } }] } };
  };
  const useRegex = { [`${prefix}/use-regex`]: 'true' };
  const rewrite = { [`${prefix}/rewrite-target`]: '/$2' };
  const cases: [path: string, annotations: Record<string, string>, error: RegExp][] = [
    ['/(?<proxy_upstream_name>[a-z0-9-]+)/(.*)', { ...useRegex, ...rewrite }, /named groups/],
    ['/(', useRegex, /a "\(" is not closed/],
    ['/(?<host>x)', useRegex, /named groups/],
    ['/(a+)+$', useRegex, /a repeated group must not itself contain repetition/],
    ['/something(/|$)', rewrite, /has 1 capture group but its rewrite-target refers to \$2/],
  ];
  for (const [n, [path, annotations, error]] of cases.entries()) {
    const acceptance = new IngressAcceptance(prefix);
    const result = acceptance.update([regexVersion(String(n), path, annotations)], DEFAULT_SETTINGS);
    assert.deepEqual(result.accepted, [], path);
    const errors = result.refused[0]?.errors.join('; ') ?? '';
    assert.ok(errors.startsWith(`path ${JSON.stringify(path)} of host h `), errors);
    assert.match(errors, error, path);
  }
  // Without regex mode the same path is a literal prefix, and the usual regex paths pass.
  assert.equal(new IngressAcceptance(prefix).update([regexVersion('9', '/(', {})], DEFAULT_SETTINGS).accepted.length, 1);
  assert.equal(
    new IngressAcceptance(prefix).update([regexVersion('9', '/something(/|$)(.*)', rewrite)], DEFAULT_SETTINGS).accepted.length,
    1,
  );
});

test('a path over 1024 bytes is refused whatever its type (nginx fails on a token over 4096)', () => {
  const result = new IngressAcceptance(prefix).update([version('1', {}, `/${'a'.repeat(4000)}`)], DEFAULT_SETTINGS);
  assert.deepEqual(result.accepted, []);
  assert.match(result.refused[0]?.errors.join() ?? '', /^path "\/a+" of host h is 4001 bytes long \(at most 1024\)$/);
});
