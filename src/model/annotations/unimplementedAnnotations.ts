// ingress-nginx's annotations that Portico does not implement yet, with their
// risk levels (docs/user-guide/nginx-configuration/annotations-risk.md), so
// the risk gate refuses what ingress-nginx refuses even before they exist here.
// Most are ignored with a warning. Those whose absence would let through
// requests that ingress-nginx refuses are refused instead: ignoring them would
// fail open. Those Debian's nginx has no module for are ignored with a warning
// that says so: Portico cannot implement them on the nginx it runs.
import type { RiskLevel } from '../settings/globalSettings.js';

export interface UnimplementedAnnotationGroup {
  /** Set when ignoring the annotation would fail open: the Ingress is refused, with this reason. */
  unsafeToIgnore?: string;
  /** Set when Debian's nginx has no module for the annotation (the name of the module's feature). */
  missingModule?: string;
  risks: Readonly<Record<string, RiskLevel>>;
}

export const UNIMPLEMENTED_ANNOTATION_GROUPS: readonly UnimplementedAnnotationGroup[] = [
  {
    // Debian 12 packages no OpenTelemetry module for nginx (ingress-nginx builds its own).
    missingModule: 'OpenTelemetry',
    risks: { 'enable-opentelemetry': 'Low', 'opentelemetry-trust-incoming-span': 'Low', 'opentelemetry-operation-name': 'Medium' },
  },
];
