import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reviewIngress } from '../../src/admission/reviewIngress.js';
import type { Ingress } from '../../src/kube/objects.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { contextWith, ingress, PREFIX } from './admissionTestSupport.js';

test('a valid new Ingress is allowed', () => {
  const verdict = reviewIngress(
    ingress('new', [['a.example', '/api', 'Prefix']]),
    contextWith([ingress('old', [['a.example', '/', 'Prefix']])]),
  );
  assert.equal(verdict.allowed, true);
  assert.equal(verdict.message, undefined);
});

test('an invalid annotation value is denied, naming the annotation and the reason', () => {
  const verdict = reviewIngress(ingress('bad', [['a.example', '/', 'Prefix']], { 'proxy-body-size': '8m; evil' }), contextWith([]));
  assert.equal(verdict.allowed, false);
  assert.match(verdict.message ?? '', /annotation nginx\.ingress\.kubernetes\.io\/proxy-body-size: invalid value/);
});

test('an annotation above annotations-risk-level is denied with the levels', () => {
  const settings = { ...DEFAULT_SETTINGS, annotationsRiskLevel: 'Medium' as const };
  const verdict = reviewIngress(
    ingress('risky', [['a.example', '/', 'Prefix']], { 'upstream-hash-by': '$request_uri' }),
    contextWith([], { settings }),
  );
  assert.equal(verdict.allowed, false);
  assert.match(verdict.message ?? '', /upstream-hash-by: risk level High is above the ConfigMap's annotations-risk-level Medium/);
  assert.equal(
    reviewIngress(ingress('risky', [['a.example', '/', 'Prefix']], { 'upstream-hash-by': '$request_uri' }), contextWith([])).allowed,
    true,
  );
});

test('a regex in a Prefix path is denied under strict-validate-path-type, allowed as ImplementationSpecific', () => {
  const context = contextWith([]);
  const prefix = reviewIngress(ingress('re', [['a.example', '/api/(.*)', 'Prefix']]), context);
  assert.equal(prefix.allowed, false);
  assert.match(prefix.message ?? '', /path "\/api\/\(\.\*\)" of host a\.example \(pathType Prefix\) may contain only/);
  assert.equal(reviewIngress(ingress('re', [['a.example', '/api/(.*)', 'ImplementationSpecific']]), context).allowed, true);
});

test('a host+path another Ingress serves is denied, naming it; the same path on another host or type is not', () => {
  const context = contextWith([ingress('owner', [['a.example', '/api', 'Prefix']], {}, { namespace: 'team-a' })]);
  const taken = reviewIngress(ingress('thief', [['a.example', '/api/', 'Prefix']]), context);
  assert.equal(taken.allowed, false);
  assert.equal(taken.message, 'host "a.example" path "/api/" (pathType Prefix) is already served by Ingress team-a/owner');
  assert.equal(reviewIngress(ingress('other-host', [['b.example', '/api', 'Prefix']]), context).allowed, true);
  assert.equal(reviewIngress(ingress('exact', [['a.example', '/api', 'Exact']]), context).allowed, true);
  // ImplementationSpecific is Prefix, as in ingress-nginx.
  assert.equal(reviewIngress(ingress('impl', [['a.example', '/api', 'ImplementationSpecific']]), context).allowed, false);
});

test('in a regex host an Exact and a Prefix path of one string are one location', () => {
  const context = contextWith([ingress('owner', [['a.example', '/api', 'Prefix']], { 'use-regex': 'true' })]);
  const verdict = reviewIngress(ingress('exact', [['a.example', '/api', 'Exact']]), context);
  assert.equal(verdict.allowed, false);
  assert.match(verdict.message ?? '', /already served by Ingress app\/owner/);
});

test('an update of an Ingress does not conflict with its own previous version', () => {
  const owner = ingress('web', [['a.example', '/', 'Prefix']]);
  const update = {
    ...ingress('web', [
      ['a.example', '/', 'Prefix'],
      ['b.example', '/', 'Prefix'],
    ]),
    metadata: { ...owner.metadata, resourceVersion: '99' },
  };
  assert.equal(reviewIngress(update, contextWith([owner])).allowed, true);
});

test('exactly one canary may share a host+path; two canaries or two primaries may not', () => {
  const primary = ingress('primary', [['a.example', '/', 'Prefix']]);
  const canary = (name: string) => ingress(name, [['a.example', '/', 'Prefix']], { canary: 'true', 'canary-weight': '10' });
  assert.equal(reviewIngress(canary('canary-1'), contextWith([primary])).allowed, true);
  const second = reviewIngress(canary('canary-2'), contextWith([primary, canary('canary-1')]));
  assert.equal(second.allowed, false);
  assert.match(second.message ?? '', /already has a canary: Ingress app\/canary-1/);
  // A primary beside an existing canary: its twin primary still conflicts.
  const twin = reviewIngress(ingress('twin', [['a.example', '/', 'Prefix']]), contextWith([primary, canary('canary-1')]));
  assert.match(twin.message ?? '', /already served by Ingress app\/primary/);
});

test('Ingresses of another class or of an unwatched namespace are allowed without any check', () => {
  const invalid = { 'proxy-body-size': '8m; evil' };
  const context = contextWith([]);
  assert.deepEqual(reviewIngress(ingress('x', [['a.example', '/', 'Prefix']], invalid, { className: 'other' }), context), {
    allowed: true,
    warnings: [],
  });
  assert.equal(reviewIngress(ingress('x', [['a.example', '/', 'Prefix']], invalid, { className: null }), context).allowed, true);
  const watchingTeamA = contextWith([], { watchNamespace: 'team-a' });
  assert.equal(reviewIngress(ingress('x', [['a.example', '/', 'Prefix']], invalid), watchingTeamA).allowed, true);
  assert.equal(reviewIngress(ingress('x', [['a.example', '/', 'Prefix']], invalid, { namespace: 'team-a' }), watchingTeamA).allowed, false);
});

test('a catch-all Ingress is denied under --disable-catch-all', () => {
  const catchAll: Ingress = {
    metadata: { name: 'all', namespace: 'app' },
    spec: { ingressClassName: 'nginx', defaultBackend: { service: { name: 's', port: { number: 80 } } } },
  };
  assert.equal(reviewIngress(catchAll, contextWith([])).allowed, true);
  const verdict = reviewIngress(catchAll, contextWith([], { store: { disableCatchAll: true } }));
  assert.equal(verdict.allowed, false);
  assert.match(verdict.message ?? '', /^spec\.defaultBackend: .*--disable-catch-all/);
});

test('deprecated annotations, ignored ones and model problems come back as warnings', () => {
  const candidate = ingress('warned', [['a.example', '/', 'Prefix']], {
    'whitelist-source-range': '10.0.0.0/8',
    'influxdb-port': '8089',
    'cors-max-age': '5',
  });
  candidate.spec = { ...candidate.spec, tls: [{ hosts: ['a.example'], secretName: 'missing' }] };
  const verdict = reviewIngress(candidate, contextWith([]));
  assert.equal(verdict.allowed, true);
  assert.deepEqual(verdict.warnings, [
    `annotation ${PREFIX}/influxdb-port is deprecated and has no effect; the InfluxDB module was removed`,
    `annotation ${PREFIX}/whitelist-source-range is deprecated; use ${PREFIX}/allowlist-source-range`,
    `annotation ${PREFIX}/influxdb-port: unknown annotation (ingress-nginx has none by this name), ignored`,
    `annotation ${PREFIX}/cors-max-age: ignored: it has no effect without enable-cors: "true"`,
    'MissingTLSSecret: secret app/missing not found; host a.example gets the default certificate',
  ]);
});

test('a canary is checked with its primary: no orphan warning when the primary exists', () => {
  const primary = ingress('primary', [['a.example', '/', 'Prefix']]);
  const canary = ingress('canary', [['a.example', '/', 'Prefix']], { canary: 'true', 'canary-weight': '10' });
  assert.deepEqual(reviewIngress(canary, contextWith([primary])).warnings, []);
  assert.match(reviewIngress(canary, contextWith([])).warnings.join(), /OrphanCanary/);
});

test('regex paths nginx would refuse, misread or backtrack on are denied, naming the path; the usual ones are allowed', () => {
  const context = contextWith([]);
  const cases: [path: string, annotations: Record<string, string>, message: RegExp][] = [
    ['/(?<proxy_upstream_name>[a-z0-9-]+)/(.*)', { 'use-regex': 'true', 'rewrite-target': '/$2' }, /named groups/],
    ['/(', { 'use-regex': 'true' }, /a "\(" is not closed/],
    ['/(?<host>x)', { 'use-regex': 'true' }, /named groups/],
    ['/(a+)+$', { 'use-regex': 'true' }, /a repeated group must not itself contain repetition/],
    [`/${'a'.repeat(4000)}`, {}, /is 4001 bytes long \(at most 1024\)/],
    ['/api(/|$)', { 'rewrite-target': '/$2' }, /has 1 capture group but its rewrite-target refers to \$2/],
  ];
  for (const [path, annotations, message] of cases) {
    const verdict = reviewIngress(ingress('hostile', [['a.example', path, 'ImplementationSpecific']], annotations), context);
    assert.equal(verdict.allowed, false, path);
    assert.ok(verdict.message?.startsWith(`path ${JSON.stringify(path.slice(0, 64))} of host a.example `), verdict.message);
    assert.match(verdict.message ?? '', message, path);
  }
  const usual: [path: string, target: string][] = [
    ['/something(/|$)(.*)', '/${2}'],
    ['/api/v[0-9]+/(.*)', '/$1'],
    ['/(.*)', '/$1'],
  ];
  for (const [path, target] of usual) {
    const verdict = reviewIngress(ingress('usual', [['a.example', path, 'ImplementationSpecific']], { 'rewrite-target': target }), context);
    assert.equal(verdict.allowed, true, `${path}: ${verdict.message}`);
  }
});

test("a path that the host's regex mode (another Ingress's) would make unservable is denied", () => {
  const context = contextWith([ingress('regex', [['a.example', '/api/(.*)', 'ImplementationSpecific']], { 'use-regex': 'true' })]);
  const verdict = reviewIngress(ingress('plain', [['a.example', '/files(', 'ImplementationSpecific']]), context);
  assert.equal(verdict.allowed, false);
  assert.match(verdict.message ?? '', /^path "\/files\(" on host a\.example is served as a regular expression .*not closed/);
  assert.equal(reviewIngress(ingress('plain', [['b.example', '/files(', 'ImplementationSpecific']]), context).allowed, true);
});
