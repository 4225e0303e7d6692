// `portico check`'s table for people: one row per finding (OBJECT, RESULT,
// DETAIL), then one line that says whether anything would change.
import type { CheckReport } from './checkReport.js';

type Row = readonly [object: string, result: string, detail: string];

export function formatTable(report: CheckReport): string {
  const rows: Row[] = [];
  for (const ingress of report.ingresses) {
    const object = `Ingress ${ingress.namespace}/${ingress.name}`;
    for (const reason of ingress.refused) rows.push([object, 'refused', reason]);
    for (const route of ingress.serves) rows.push([object, 'serves', `${route.host} ${route.path} (${route.match})`]);
    if (ingress.status === 'served' && ingress.serves.length === 0) rows.push([object, 'serves', 'no route of its own']);
    for (const message of ingress.ignored) rows.push([object, 'ignores', message]);
    for (const problem of ingress.problems) rows.push([object, problem.severity, `${problem.reason}: ${problem.message}`]);
  }
  const { configMap } = report;
  if (configMap.name !== null) {
    const object = `ConfigMap ${configMap.name}`;
    if (!configMap.found) rows.push([object, 'missing', 'not found: the defaults apply, as in ingress-nginx']);
    for (const message of configMap.refusedValues) rows.push([object, 'refuses value', message]);
    for (const { key, kind, reason } of configMap.ignoredKeys) rows.push([object, 'ignores key', `${key} (${kind}): ${reason}`]);
  }
  if (report.deployment) {
    const object = `Deployment ${report.deployment.name}`;
    for (const { argument, kind, reason } of report.deployment.flags) rows.push([object, `flag ${kind}`, `${argument}: ${reason}`]);
  }
  for (const warning of report.warnings) rows.push(['controller', 'warning', warning]);

  const lines = rows.length === 0 ? [] : aligned([['OBJECT', 'RESULT', 'DETAIL'], ...rows]);
  lines.push(summary(report));
  return `${lines.join('\n')}\n`;
}

function aligned(rows: readonly Row[]): string[] {
  const objectWidth = Math.max(...rows.map((row) => row[0].length));
  const resultWidth = Math.max(...rows.map((row) => row[1].length));
  return rows.map(([object, result, detail]) => `${object.padEnd(objectWidth)}  ${result.padEnd(resultWidth)}  ${detail}`);
}

function summary(report: CheckReport): string {
  const changed = report.ingresses.filter((ingress) => ingress.changes);
  const refused = changed.filter((ingress) => ingress.status === 'refused').length;
  const parts = [
    `${report.ingresses.length - changed.length} of ${report.ingresses.length} Ingresses served as ingress-nginx would`,
    `${changed.length - refused} served differently`,
    `${refused} refused`,
    `${report.configMap.refusedValues.length} ConfigMap values refused`,
    `${report.configMap.ignoredKeys.length} ConfigMap keys ignored`,
  ];
  if (report.deployment) parts.push(`${report.deployment.flags.length} flags not honoured`);
  return `${report.changes ? 'Something would change' : 'Nothing would change'}: ${parts.join(', ')}.`;
}
