// The *-snippet annotations: raw nginx configuration from whoever may edit an
// Ingress (CVE-2021-25742, CVE-2023-5043). Declared so that they are refused
// unless the ConfigMap opts in twice; Portico does not implement them beyond that yet.
import type { GlobalSettings, RiskLevel } from '../settings/globalSettings.js';
import { isRiskAdmitted } from './riskLevels.js';

export const SNIPPET_ANNOTATIONS: readonly string[] = [
  'configuration-snippet',
  'server-snippet',
  'auth-snippet',
  'modsecurity-snippet',
  'stream-snippet',
];

export const SNIPPET_RISK: RiskLevel = 'Critical';

/** Why the ConfigMap refuses snippet annotations, or undefined when it admits them. */
export function snippetRefusal(settings: GlobalSettings): string | undefined {
  if (settings.allowSnippetAnnotations && isRiskAdmitted(SNIPPET_RISK, settings.annotationsRiskLevel)) return undefined;
  return (
    'snippet annotations are refused unless the ConfigMap sets allow-snippet-annotations: "true" and ' +
    `annotations-risk-level: Critical (it has ${settings.allowSnippetAnnotations} and ${settings.annotationsRiskLevel})`
  );
}
