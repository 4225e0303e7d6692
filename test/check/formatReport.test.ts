// Both of `portico check`'s outputs of one report: the table for people, row
// by row, and the JSON document, which is the report itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CheckReport } from '../../src/check/checkReport.js';
import { formatJson } from '../../src/check/formatJson.js';
import { formatTable } from '../../src/check/formatTable.js';

const REPORT: CheckReport = {
  version: 1,
  changes: true,
  ingresses: [
    {
      namespace: 'shop',
      name: 'otel',
      status: 'served',
      changes: true,
      serves: [{ host: 'otel.example', path: '/api', match: 'exact' }],
      refused: [],
      ignored: ['annotation a/enable-opentelemetry: no module; ignored'],
      problems: [{ severity: 'info', reason: 'Advice', message: 'consider this' }],
    },
    {
      namespace: 'shop',
      name: 'bad',
      status: 'refused',
      changes: true,
      serves: [],
      refused: ['annotation a/b: bad'],
      ignored: [],
      problems: [],
    },
    { namespace: 'shop', name: 'canary', status: 'served', changes: false, serves: [], refused: [], ignored: [], problems: [] },
  ],
  configMap: {
    name: 'ingress-nginx/cfg',
    found: true,
    refusedValues: ['ConfigMap key keep-alive: bad; keeping the default'],
    ignoredKeys: [{ key: 'enable-brotli', kind: 'missing-module', reason: 'no brotli' }],
  },
  deployment: {
    name: 'ingress-nginx/ctl',
    container: 'controller',
    flags: [{ argument: '--x=1', kind: 'unknown', reason: 'no such flag' }],
  },
  warnings: ['default backend missing'],
};

test('the table: one aligned row per finding, then the summary', () => {
  const rows = [
    ['OBJECT', 'RESULT', 'DETAIL'],
    ['Ingress shop/otel', 'serves', 'otel.example /api (exact)'],
    ['Ingress shop/otel', 'ignores', 'annotation a/enable-opentelemetry: no module; ignored'],
    ['Ingress shop/otel', 'info', 'Advice: consider this'],
    ['Ingress shop/bad', 'refused', 'annotation a/b: bad'],
    ['Ingress shop/canary', 'serves', 'no route of its own'],
    ['ConfigMap ingress-nginx/cfg', 'refuses value', 'ConfigMap key keep-alive: bad; keeping the default'],
    ['ConfigMap ingress-nginx/cfg', 'ignores key', 'enable-brotli (missing-module): no brotli'],
    ['Deployment ingress-nginx/ctl', 'flag unknown', '--x=1: no such flag'],
    ['controller', 'warning', 'default backend missing'],
  ];
  // The widest object is "Deployment ingress-nginx/ctl" (28), the widest result "refuses value" (13).
  const table = rows.map(([object = '', result = '', detail = '']) => `${object.padEnd(28)}  ${result.padEnd(13)}  ${detail}`);
  const summary =
    'Something would change: 1 of 3 Ingresses served as ingress-nginx would, 1 served differently, 1 refused, ' +
    '1 ConfigMap values refused, 1 ConfigMap keys ignored, 1 flags not honoured.';
  assert.equal(formatTable(REPORT), [...table, summary].join('\n') + '\n');
});

test('the table of a cluster where nothing would change is the summary alone', () => {
  const report: CheckReport = {
    version: 1,
    changes: false,
    ingresses: [],
    configMap: { name: null, found: false, refusedValues: [], ignoredKeys: [] },
    warnings: [],
  };
  assert.equal(
    formatTable(report),
    'Nothing would change: 0 of 0 Ingresses served as ingress-nginx would, 0 served differently, 0 refused, ' +
      '0 ConfigMap values refused, 0 ConfigMap keys ignored.\n',
  );
});

test('the JSON document is the report, indented, one line per field', () => {
  const text = formatJson(REPORT);
  assert.deepEqual(JSON.parse(text), REPORT);
  assert.ok(text.endsWith('}\n'));
  assert.match(text, /^{\n {2}"version": 1,\n {2}"changes": true,\n/);
});
