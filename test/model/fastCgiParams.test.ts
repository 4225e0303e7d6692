import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConfigMap } from '../../src/kube/objects.js';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { annotated, build, ingress, world } from './modelTestSupport.js';

const configMap = (namespace: string, name: string, data: Record<string, string>): ConfigMap => ({ metadata: { namespace, name }, data });

function fastCgiOf(reference: string, configMaps: ConfigMap[], settings = DEFAULT_SETTINGS) {
  const php = annotated(ingress('web', 'php.example', [['/', 'Prefix', 'web']]), {
    'backend-protocol': 'FCGI',
    'fastcgi-params-configmap': reference,
  });
  const result = build([php], world([], [], [], configMaps), { settings });
  const location = result.configuration.servers.find((server) => server.hostname === 'php.example')?.locations[0];
  return { fastCgi: location?.annotations.fastCgi, problems: result.problems };
}

test("the ConfigMap's parameters, sorted by name", () => {
  const data = { SCRIPT_FILENAME: '/srv/www$fastcgi_script_name', APP_ENV: 'prod', DOC: '${document_root}/x' };
  const { fastCgi, problems } = fastCgiOf('params', [configMap('app', 'params', data)]);
  assert.deepEqual(problems, []);
  assert.equal(fastCgi?.denied, undefined);
  assert.deepEqual(fastCgi?.params, [
    ['APP_ENV', 'prod'],
    ['DOC', '${document_root}/x'],
    ['SCRIPT_FILENAME', '/srv/www$fastcgi_script_name'],
  ]);
});

test('a missing ConfigMap denies the location with a Warning', () => {
  const { fastCgi, problems } = fastCgiOf('params', []);
  assert.match(fastCgi?.denied ?? '', /app\/params not found/);
  assert.deepEqual(
    problems.map((problem) => [problem.severity, problem.reason]),
    [['warning', 'InvalidFastCgiParams']],
  );
});

test("another namespace's ConfigMap only with allow-cross-namespace-resources", () => {
  const maps = [configMap('shared', 'params', { A: 'a' })];
  assert.match(fastCgiOf('shared/params', maps).fastCgi?.denied ?? '', /allow-cross-namespace-resources is false/);
  const allowed = fastCgiOf('shared/params', maps, { ...DEFAULT_SETTINGS, allowCrossNamespaceResources: true });
  assert.equal(allowed.fastCgi?.denied, undefined);
  assert.deepEqual(allowed.fastCgi?.params, [['A', 'a']]);
});

test('names and values outside ingress-nginx character sets, and unknown variables, deny the location', () => {
  const hostile: Array<Record<string, string>> = [
    { 'A;': 'a' },
    { 'A B': 'a' },
    { 'A"': 'a' },
    { '': 'a' },
    { A: 'a";\n return 200 "open' },
    { A: 'a b' },
    { A: 'stray $' },
    { A: '${unclosed' },
    { A: '$no_such_variable' },
    { A: '$1' },
    { A: 'ünïcødé' },
    { A: 'x'.repeat(2049) },
  ];
  for (const data of hostile) {
    const { fastCgi, problems } = fastCgiOf('params', [configMap('app', 'params', data)]);
    assert.ok(fastCgi?.denied !== undefined, JSON.stringify(data));
    assert.deepEqual(fastCgi?.params, [], JSON.stringify(data));
    assert.equal(problems.length, 1, JSON.stringify(data));
  }
});
