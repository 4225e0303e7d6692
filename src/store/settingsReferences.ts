// Secrets the global ConfigMap names (ssl-dh-param): a change to one must
// reach the model like a change to a Secret an Ingress names. Read from the
// ConfigMap's raw data, as the store does not parse settings; a misspelled
// value matches no Secret, and the model reports it.
import type { ConfigMap } from '../kube/objects.js';

export function secretsOfSettings(configMap: ConfigMap | undefined): string[] {
  const dhParam = configMap?.data?.['ssl-dh-param']?.trim();
  return dhParam ? [dhParam] : [];
}
