// ingress-nginx's annotation risk levels (parser.AnnotationRisk), lowest first.
import type { RiskLevel } from '../settings/globalSettings.js';

export const RISK_LEVELS: readonly RiskLevel[] = ['Low', 'Medium', 'High', 'Critical'];

/** As ingress-nginx: an annotation is allowed when its risk is at most the configured `annotations-risk-level`. */
export function isRiskAdmitted(risk: RiskLevel, configuredLevel: RiskLevel): boolean {
  return RISK_LEVELS.indexOf(risk) <= RISK_LEVELS.indexOf(configuredLevel);
}
