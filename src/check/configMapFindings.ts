// The global ConfigMap as the controller reads it (parseGlobalSettings), and
// what of it Portico would not act on: values it refuses and keys it ignores,
// each ignored key classified by ingress-nginx's own list of keys.
import type { ConfigMap } from '../kube/objects.js';
import type { GlobalSettings } from '../model/settings/globalSettings.js';
import { classifyIgnoredKey } from '../model/settings/ingressNginxConfigMapKeys.js';
import { parseGlobalSettings, type SettingsEnvironment } from '../model/settings/parseGlobalSettings.js';
import type { ConfigMapFinding } from './checkReport.js';

/** The settings the controller would run with, and the finding on the ConfigMap that gave them. */
export function readConfigMap(
  name: string | undefined,
  configMap: ConfigMap | undefined,
  environment: SettingsEnvironment,
): { settings: GlobalSettings; finding: ConfigMapFinding } {
  const parsed = parseGlobalSettings(configMap?.data, environment);
  return {
    settings: parsed.settings,
    finding: {
      name: name ?? null,
      found: configMap !== undefined,
      refusedValues: parsed.problems,
      ignoredKeys: parsed.unknownKeys.map((key) => ({ key, ...classifyIgnoredKey(key) })),
    },
  };
}
