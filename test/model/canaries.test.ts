import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, annotated, backendOf, build, ingress, locationsOf, problemsOf } from './modelTestSupport.js';

const POLICY = {
  weight: 0,
  weightTotal: 100,
  header: undefined,
  headerValue: undefined,
  headerPattern: undefined,
  cookie: undefined,
  affinityBehavior: 'sticky',
};

const primary = (name = 'prod', paths: Parameters<typeof ingress>[2] = [['/', 'Prefix', 'web']], host = 'h') =>
  accepted(ingress(name, host, paths));
const canary = (name: string, paths: Parameters<typeof ingress>[2], annotations: Record<string, string> = {}, host = 'h') =>
  annotated(ingress(name, host, paths), { canary: 'true', ...annotations });

test("a canary's backend becomes the canary of the primary location's backend, by weight", () => {
  const result = build([primary(), canary('beta', [['/', 'Prefix', 'web-beta']], { 'canary-weight': '20' })]);
  assert.deepEqual(backendOf(result, 'app/web:80')?.canary, { backend: 'app/web-beta:80', ...POLICY, weight: 20 });
  assert.equal(backendOf(result, 'app/web-beta:80')?.canary, undefined);
  assert.deepEqual(locationsOf(result, 'h'), ['prefix / -> app/web:80'], 'the canary has no location of its own');
  assert.deepEqual(result.problems, []);
});

test('header, header value or pattern, cookie and weight total are carried', () => {
  const result = build([
    primary(),
    canary('beta', [['/', 'Prefix', 'web-beta']], {
      'canary-weight': '1',
      'canary-weight-total': '1000',
      'canary-by-header': 'X-Beta',
      'canary-by-header-pattern': '^(yes|1)$',
      'canary-by-cookie': 'beta_user',
    }),
  ]);
  assert.deepEqual(backendOf(result, 'app/web:80')?.canary, {
    backend: 'app/web-beta:80',
    weight: 1,
    weightTotal: 1000,
    header: 'X-Beta',
    headerValue: undefined,
    headerPattern: '^(yes|1)$',
    cookie: 'beta_user',
    affinityBehavior: 'sticky',
  });
});

test('a canary older than its primary still joins it', () => {
  const beta = canary('beta', [['/api', 'Prefix', 'web-beta']], { 'canary-by-header': 'X-Beta' });
  const result = build([primary('prod', [['/api', 'Prefix', 'web']]), beta]);
  assert.equal(backendOf(result, 'app/web:80')?.canary?.backend, 'app/web-beta:80');
  assert.deepEqual(result.problems, []);
});

test('the primary is the location at the same host, path and match, after normalisation', () => {
  const prefix = build([primary('prod', [['/api', 'Prefix', 'web']]), canary('beta', [['/api/', 'ImplementationSpecific', 'web-beta']])]);
  assert.equal(backendOf(prefix, 'app/web:80')?.canary?.backend, 'app/web-beta:80', 'Prefix /api/ is the location /api');
  const regexHost = build([
    accepted(ingress('prod', 'h', [['/api/(.*)', 'ImplementationSpecific', 'web']]), { useRegex: true }),
    canary('beta', [['/api/(.*)', 'ImplementationSpecific', 'web-beta']]),
  ]);
  assert.equal(backendOf(regexHost, 'app/web:80')?.canary?.backend, 'app/web-beta:80');
});

test('an orphan canary (no primary at that host, path and match) is ignored and told', () => {
  const result = build([
    primary('prod', [['/api', 'Exact', 'web']]),
    canary('other-path', [['/other', 'Prefix', 'beta-1']]),
    canary('other-type', [['/api', 'Prefix', 'beta-2']]),
    canary('other-host', [['/api', 'Exact', 'beta-3']], {}, 'elsewhere'),
  ]);
  // By Ingress name (configurationOrder.ts).
  assert.deepEqual(problemsOf(result), ['other-host OrphanCanary', 'other-path OrphanCanary', 'other-type OrphanCanary']);
  assert.match(result.problems[1]?.message ?? '', /^path \/other \(Prefix\) on host h has no primary/);
  assert.equal(backendOf(result, 'app/web:80')?.canary, undefined);
  assert.deepEqual(
    result.configuration.backends.map((b) => b.name),
    ['app/web:80'],
    'orphan canaries add no backend',
  );
  assert.deepEqual(
    result.configuration.servers.map((s) => s.hostname),
    ['_', 'h'],
    'nor a server',
  );
});

test('a generated root is no primary: a canary at / of a host without a / rule is an orphan', () => {
  const result = build([primary('prod', [['/api', 'Prefix', 'web']]), canary('beta', [['/', 'Prefix', 'web-beta']])]);
  assert.deepEqual(problemsOf(result), ['beta OrphanCanary']);
});

test('one canary per primary backend: the oldest canary Ingress wins, later ones are told', () => {
  const first = canary('first', [['/', 'Prefix', 'web-beta']], { 'canary-weight': '10' });
  const second = canary('second', [['/', 'Prefix', 'web-gamma']], { 'canary-weight': '90' });
  for (const order of [
    [primary(), first, second],
    [second, first, primary()],
  ]) {
    const result = build(order);
    assert.deepEqual(backendOf(result, 'app/web:80')?.canary, { backend: 'app/web-beta:80', ...POLICY, weight: 10 });
    assert.deepEqual(problemsOf(result), ['second CanaryConflict']);
    assert.match(result.problems[0]?.message ?? '', /already has the canary app\/web-beta:80 \(from Ingress app\/first; the oldest wins\)/);
    assert.equal(backendOf(result, 'app/web-gamma:80'), undefined);
  }
});

test('one canary Ingress may serve several primaries, and name one backend for several paths', () => {
  const result = build([
    primary('prod', [
      ['/a', 'Prefix', 'web-a'],
      ['/b', 'Prefix', 'web-b'],
    ]),
    canary(
      'beta',
      [
        ['/a', 'Prefix', 'web-beta'],
        ['/b', 'Prefix', 'web-beta'],
      ],
      { 'canary-weight': '5' },
    ),
  ]);
  assert.equal(backendOf(result, 'app/web-a:80')?.canary?.backend, 'app/web-beta:80');
  assert.equal(backendOf(result, 'app/web-b:80')?.canary?.backend, 'app/web-beta:80');
  assert.deepEqual(result.problems, []);
});

test("a canary naming the primary's own backend is ignored and told", () => {
  const result = build([primary(), canary('same', [['/', 'Prefix', 'web']], { 'canary-weight': '50' })]);
  assert.equal(backendOf(result, 'app/web:80')?.canary, undefined);
  assert.deepEqual(problemsOf(result), ['same CanaryIgnored']);
});

test("a canary's spec.defaultBackend and spec.tls do nothing", () => {
  const beta = annotated(
    ingress('beta', 'h', [['/', 'Prefix', 'web-beta']], {
      defaultBackend: { service: { name: 'fallback', port: { number: 80 } } },
      tls: [{ hosts: ['h'], secretName: 'beta-tls' }],
    }),
    { canary: 'true' },
  );
  const result = build([beta, primary()]);
  assert.deepEqual(problemsOf(result), ['beta OrphanCanary']);
  assert.match(result.problems[0]?.message ?? '', /spec\.defaultBackend is ignored/);
  assert.deepEqual(locationsOf(result, '_'), ['prefix / -> 404'], 'not the catch-all');
  assert.equal(result.configuration.servers.find((s) => s.hostname === 'h')?.tls, false);
  assert.equal(backendOf(result, 'app/fallback:80'), undefined);
  assert.equal(backendOf(result, 'app/web:80')?.canary?.backend, 'app/web-beta:80');
});

test("affinity-canary-behavior sticky (the default) gives the canary backend the primary's affinity, even none", () => {
  const sticky = { affinity: 'cookie', 'session-cookie-name': 'PRIMARY' };
  const result = build([
    annotated(ingress('prod', 'h', [['/', 'Prefix', 'web']]), sticky),
    canary('beta', [['/', 'Prefix', 'web-beta']], { 'canary-weight': '10', affinity: 'cookie', 'session-cookie-name': 'OWN' }),
  ]);
  assert.equal(backendOf(result, 'app/web-beta:80')?.balancing.affinity?.cookie.name, 'PRIMARY');
  assert.equal(backendOf(result, 'app/web:80')?.canary?.affinityBehavior, 'sticky');

  const unpinnedPrimary = build([primary(), canary('beta', [['/', 'Prefix', 'web-beta']], { 'canary-weight': '10', affinity: 'cookie' })]);
  assert.equal(
    backendOf(unpinnedPrimary, 'app/web-beta:80')?.balancing.affinity,
    undefined,
    'the primary has none, so neither has the canary',
  );
});

test("affinity-canary-behavior legacy keeps the canary backend's own balancing", () => {
  const result = build([
    annotated(ingress('prod', 'h', [['/', 'Prefix', 'web']]), { affinity: 'cookie', 'session-cookie-name': 'PRIMARY' }),
    canary('beta', [['/', 'Prefix', 'web-beta']], {
      'canary-weight': '10',
      'affinity-canary-behavior': 'legacy',
      affinity: 'cookie',
      'session-cookie-name': 'OWN',
    }),
  ]);
  assert.equal(backendOf(result, 'app/web-beta:80')?.balancing.affinity?.cookie.name, 'OWN');
  assert.equal(backendOf(result, 'app/web:80')?.balancing.affinity?.cookie.name, 'PRIMARY');
});
