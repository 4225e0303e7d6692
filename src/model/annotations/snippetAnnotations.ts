// The *-snippet annotations: raw nginx configuration from whoever may edit an
// Ingress (CVE-2021-25742, CVE-2023-5043). Refused unless the ConfigMap opts in
// twice. configuration-snippet (written into each of the Ingress's locations),
// server-snippet (written into the server block of its hosts:
// hostServerSnippet.ts), auth-snippet (externalAuthAnnotations.ts) and
// modsecurity-snippet (modSecurityAnnotations.ts) and stream-snippet (written
// into the stream block: model/stream/streamSnippets.ts) are implemented.
import type { GlobalSettings, RiskLevel } from '../settings/globalSettings.js';
import type { IngressAnnotations, LocationAnnotations } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';
import { isRiskAdmitted } from './riskLevels.js';

export const SNIPPET_ANNOTATIONS: readonly string[] = [
  'configuration-snippet',
  'server-snippet',
  'auth-snippet',
  'modsecurity-snippet',
  'stream-snippet',
];

export const SNIPPET_RISK: RiskLevel = 'Critical';

/** The snippets written verbatim, line by line: they may span lines, as in ingress-nginx. modsecurity-snippet is one quoted line. */
export const LINE_BROKEN_SNIPPETS: readonly string[] = ['configuration-snippet', 'server-snippet', 'auth-snippet', 'stream-snippet'];

/** Why the ConfigMap refuses snippet annotations, or undefined when it admits them. */
export function snippetRefusal(settings: GlobalSettings): string | undefined {
  if (settings.allowSnippetAnnotations && isRiskAdmitted(SNIPPET_RISK, settings.annotationsRiskLevel)) return undefined;
  return (
    'snippet annotations are refused unless the ConfigMap sets allow-snippet-annotations: "true" and ' +
    `annotations-risk-level: Critical (it has ${settings.allowSnippetAnnotations} and ${settings.annotationsRiskLevel})`
  );
}

const configurationSnippet: AnnotationDefinition<string> = {
  name: 'configuration-snippet',
  risk: SNIPPET_RISK,
  // The value checks every annotation gets refuse control characters but line breaks and tabs;
  // nginx alone can tell whether the directives are valid, and a refusal is traced back to this Ingress.
  parse: (text) => ({ ok: true, value: text }),
};

export const configurationSnippetAnnotations: AnnotationGroup<LocationAnnotations['configurationSnippet']> = {
  annotations: [configurationSnippet],
  resolve: (values) => values.get(configurationSnippet),
};

// Checked as configuration-snippet; the host's oldest Ingress that sets one decides (hostServerSnippet.ts).
const serverSnippet: AnnotationDefinition<string> = { name: 'server-snippet', risk: SNIPPET_RISK, parse: configurationSnippet.parse };

export const serverSnippetAnnotations: AnnotationGroup<LocationAnnotations['serverSnippet']> = {
  annotations: [serverSnippet],
  resolve: (values) => values.get(serverSnippet),
};

// Checked as configuration-snippet; every served Ingress's goes into the stream block, oldest first (streamSnippets.ts).
const streamSnippet: AnnotationDefinition<string> = { name: 'stream-snippet', risk: SNIPPET_RISK, parse: configurationSnippet.parse };

export const streamSnippetAnnotations: AnnotationGroup<IngressAnnotations['streamSnippet']> = {
  annotations: [streamSnippet],
  resolve: (values) => values.get(streamSnippet),
};
