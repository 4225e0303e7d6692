// `portico check -o json`: the report as it is (checkReport.ts, docs/portico-check.md), for scripts.
import type { CheckReport } from './checkReport.js';

export function formatJson(report: CheckReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
