// The log variables in nginx.conf (renderLogVariables.ts): two `set`s per
// location, maps in the http block, and the canary reset only in servers
// that need it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { locationVariableValue } from '../../../../src/dataplane/nginx/render/renderLogVariables.js';
import type { Backend } from '../../../../src/model/types.js';
import { backend, configuration, ingressRef, location, server, testContext } from './fixtures.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { argsOf, locationOf, named, only, serverNamed } from './parsedTree.js';

const context = testContext();
const plain = backend('shop/web:80', [], { namespace: 'shop', name: 'web' });
const canary = backend('shop/web-next:80', [], { namespace: 'shop', name: 'web-next' });
const primary: Backend = {
  ...backend('shop/primary:80', [], { namespace: 'shop', name: 'primary' }),
  canary: {
    backend: canary.name,
    weight: 10,
    weightTotal: 100,
    header: undefined,
    headerValue: undefined,
    headerPattern: undefined,
    cookie: undefined,
    affinityBehavior: 'sticky',
  },
};

const tree = parseNginxConf(
  renderNginxConf(
    configuration({
      servers: [
        server('_', []),
        server('plain.example', [location('/a b', 'exact', plain.name, { ingress: ingressRef('shop', 'web') })]),
        server('canary.example', [location('/', 'prefix', primary.name, { ingress: ingressRef('shop', 'web') })]),
      ],
      backends: [plain, canary, primary],
    }),
    context,
  ),
);

const resets = (hostname: string): string[][] => argsOf(serverNamed(tree, hostname), 'set');

test('a location sets $proxy_upstream_name and $portico_location, nothing else of the log variables', () => {
  const block = locationOf(serverNamed(tree, 'plain.example'), '=', '/a b');
  assert.deepEqual(argsOf(block, 'set'), [
    ['$proxy_upstream_name', 'shop/web:80'],
    ['$portico_location', 'shop web web 80 /a b'],
  ]);
});

test("only the catch-all and a server whose location's backend has a canary reset $proxy_alternative_upstream_name", () => {
  assert.deepEqual(resets('plain.example'), []);
  assert.deepEqual(resets('canary.example'), [['$proxy_alternative_upstream_name', '']]);
  assert.deepEqual(resets('_').slice(0, 1), [['$proxy_alternative_upstream_name', '']]);
});

test('the http block maps every ingress-nginx log variable, with the defaults the servers used to set', () => {
  const maps = named(only(tree, 'http').children, 'map');
  const byVariable = new Map(maps.map((map) => [map.args[1], map]));
  const entries = (variable: string): string[][] => (byVariable.get(variable)?.children ?? []).map((entry) => [entry.name, ...entry.args]);
  assert.deepEqual(entries('$proxy_upstream_name'), [['default', '-']]);
  assert.deepEqual(entries('$proxy_alternative_upstream_name'), [['default', '']]);
  assert.deepEqual(entries('$portico_location'), [['default', '']]);
  for (const variable of ['$namespace', '$ingress_name', '$service_name', '$service_port', '$location_path']) {
    assert.equal(byVariable.get(variable)?.args[0], '$portico_location', variable);
    assert.deepEqual(entries(variable).at(-1), ['default', ''], variable);
  }
});

test("each map's regex takes its field, the path whatever it holds (JavaScript's regex reads these patterns as PCRE does)", () => {
  const maps = named(only(tree, 'http').children, 'map');
  const value = locationVariableValue({
    upstream: 'x',
    namespace: 'ns',
    ingress: 'ing.v2',
    service: 'svc',
    servicePort: '',
    locationPath: '/a b/ c ',
  });
  const fields: Record<string, string> = {};
  for (const map of maps) {
    const [key, capture] = map.children?.[0] ? [map.children[0].name, map.children[0].args[0]] : [];
    if (map.args[0] !== '$portico_location' || key === undefined || !key.startsWith('~')) continue;
    assert.equal(capture, '$1');
    const pattern = key.slice(1).replace('(?s)', '');
    fields[map.args[1] ?? ''] = new RegExp(pattern, 's').exec(value)?.[1] ?? 'no match';
  }
  assert.deepEqual(fields, {
    $namespace: 'ns',
    $ingress_name: 'ing.v2',
    $service_name: 'svc',
    $service_port: '',
    $location_path: '/a b/ c ',
  });
});
