import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConfigMap } from '../../src/kube/objects.js';
import { DEFAULT_SETTINGS, type GlobalSettings } from '../../src/model/settings/globalSettings.js';
import { annotated, build, ingress, world } from './modelTestSupport.js';

const configMap = (namespace: string, name: string, data: Record<string, string>): ConfigMap => ({ metadata: { namespace, name }, data });

const ALLOWED: GlobalSettings = { ...DEFAULT_SETTINGS, globalAllowedResponseHeaders: ['My-Custom-Header', 'My-Custom-Header-Dollar'] };

function customOf(reference: string, configMaps: ConfigMap[], settings = ALLOWED) {
  const withHeaders = annotated(ingress('web', 'web.example', [['/', 'Prefix', 'web']]), { 'custom-headers': reference });
  const result = build([withHeaders], world([], [], [], configMaps), { settings });
  const location = result.configuration.servers.find((server) => server.hostname === 'web.example')?.locations[0];
  return { custom: location?.annotations.customHeaders, problems: result.problems };
}

test("the ConfigMap's headers, sorted by name, values as written", () => {
  const { custom, problems } = customOf('custom-headers', [
    configMap('app', 'custom-headers', { 'My-Custom-Header-Dollar': '$remote_addr', 'My-Custom-Header': '42' }),
  ]);
  assert.deepEqual(problems, []);
  assert.equal(custom?.denied, undefined);
  assert.deepEqual(custom?.headers, [
    ['My-Custom-Header', '42'],
    ['My-Custom-Header-Dollar', '$remote_addr'],
  ]);
});

test('a missing ConfigMap denies the locations (503, as ingress-nginx) with a Warning', () => {
  const { custom, problems } = customOf('custom-headers', []);
  assert.match(custom?.denied ?? '', /ConfigMap app\/custom-headers not found/);
  assert.deepEqual(
    problems.map((problem) => [problem.severity, problem.reason]),
    [['warning', 'InvalidCustomHeaders']],
  );
  assert.match(problems[0]?.message ?? '', /answer 503/);
});

test('a header global-allowed-response-headers does not list (case-sensitively) denies the locations', () => {
  const maps = [configMap('app', 'h', { 'My-Custom-Header': '42', 'X-Other': 'no' })];
  const { custom, problems } = customOf('h', maps);
  assert.match(custom?.denied ?? '', /header X-Other is not allowed by the ConfigMap's global-allowed-response-headers/);
  assert.equal(problems.length, 1);
  assert.match(customOf('h', [configMap('app', 'h', { 'my-custom-header': '42' })]).custom?.denied ?? '', /not allowed/);
  // The default allows none.
  assert.match(customOf('h', [configMap('app', 'h', { 'My-Custom-Header': '42' })], DEFAULT_SETTINGS).custom?.denied ?? '', /\(empty\)/);
});

test("another namespace's ConfigMap only with allow-cross-namespace-resources", () => {
  const maps = [configMap('shared', 'h', { 'My-Custom-Header': '1' })];
  assert.match(customOf('shared/h', maps).custom?.denied ?? '', /allow-cross-namespace-resources is false/);
  const allowed = customOf('shared/h', maps, { ...ALLOWED, allowCrossNamespaceResources: true });
  assert.equal(allowed.custom?.denied, undefined);
  assert.deepEqual(allowed.custom?.headers, [['My-Custom-Header', '1']]);
});

test("names and values outside ingress-nginx's patterns deny the locations", () => {
  const hostile: Array<Record<string, string>> = [
    { 'My-Custom-Header;': 'a' },
    { 'My Custom': 'a' },
    { 'My-Custom-Header:': 'a' },
    { '': 'a' },
    { 'My-Custom-Header': '' },
    { 'My-Custom-Header': 'a";\n more_set_headers "X: 1' },
    { 'My-Custom-Header': 'a\r\nX-Injected: 1' },
    { 'My-Custom-Header': 'tab\there' },
    { 'My-Custom-Header': 'ünïcødé' },
    { 'My-Custom-Header': 'x'.repeat(2049) },
  ];
  for (const data of hostile) {
    const { custom, problems } = customOf('h', [configMap('app', 'h', data)], {
      ...ALLOWED,
      globalAllowedResponseHeaders: [...ALLOWED.globalAllowedResponseHeaders, ...Object.keys(data)],
    });
    assert.ok(custom?.denied !== undefined, JSON.stringify(data));
    assert.equal(problems.length, 1);
  }
});
