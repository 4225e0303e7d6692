import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConfigMap } from '../../src/kube/objects.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { annotated, build, ingress, world } from './modelTestSupport.js';

const configMap = (namespace: string, name: string, data: Record<string, string>): ConfigMap => ({ metadata: { namespace, name }, data });

function authOf(reference: string, configMaps: ConfigMap[], settings = DEFAULT_SETTINGS) {
  const protectedIngress = annotated(ingress('web', 'web.example', [['/', 'Prefix', 'web']]), {
    'auth-url': 'http://auth.example/check',
    'auth-proxy-set-headers': reference,
  });
  const result = build([protectedIngress], world([], [], [], configMaps), { settings });
  const location = result.configuration.servers.find((server) => server.hostname === 'web.example')?.locations[0];
  return { auth: location?.annotations.externalAuth, problems: result.problems };
}

test("the ConfigMap's headers, sorted by name, for the auth request", () => {
  const { auth, problems } = authOf('headers', [configMap('app', 'headers', { 'X-B': 'two $host', 'X-A': 'one "quoted"' })]);
  assert.deepEqual(problems, []);
  assert.equal(auth?.denied, undefined);
  assert.deepEqual(auth?.proxySetHeaders, [
    ['X-A', 'one "quoted"'],
    ['X-B', 'two $host'],
  ]);
});

test('a missing ConfigMap denies the location with a Warning, never serves it open', () => {
  const { auth, problems } = authOf('headers', []);
  assert.match(auth?.denied ?? '', /app\/headers not found/);
  assert.deepEqual(
    problems.map((problem) => [problem.severity, problem.reason]),
    [['warning', 'InvalidAuthProxySetHeaders']],
  );
});

test("another namespace's ConfigMap only with allow-cross-namespace-resources", () => {
  const maps = [configMap('auth', 'headers', { 'X-A': 'a' })];
  assert.match(authOf('auth/headers', maps).auth?.denied ?? '', /allow-cross-namespace-resources is false/);
  const allowed = authOf('auth/headers', maps, { ...DEFAULT_SETTINGS, allowCrossNamespaceResources: true });
  assert.equal(allowed.auth?.denied, undefined);
  assert.deepEqual(allowed.auth?.proxySetHeaders, [['X-A', 'a']]);
});

test('header names and values that could carry nginx syntax deny the location (CVE-2025-15566)', () => {
  const hostile: Array<Record<string, string>> = [
    { 'X-A;': 'a' },
    { 'X A': 'a' },
    { 'X-A"': 'a' },
    { '': 'a' },
    { 'X-A': 'a";\n return 200 "open' },
    { 'X-A': 'a\r\nX-Injected: 1' },
    { 'X-A': 'tab\there' },
    { 'X-A': 'stray $' },
    { 'X-A': '${unclosed' },
    { 'X-A': 'ünïcødé' },
    { 'X-A': 'x'.repeat(2049) },
  ];
  for (const data of hostile) {
    const { auth, problems } = authOf('headers', [configMap('app', 'headers', data)]);
    assert.ok(auth?.denied !== undefined, JSON.stringify(data));
    assert.equal(problems.length, 1);
  }
});
