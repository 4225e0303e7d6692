// The global ConfigMap as the controller reads it (parseGlobalSettings), and
// what of it Portico would not act on: values it refuses and keys it ignores,
// each ignored key classified by ingress-nginx's own list of keys.
import type { ConfigMap } from '../kube/objects.js';
import type { GlobalSettings } from '../model/settings/globalSettings.js';
import { INGRESS_NGINX_CONFIGMAP_KEYS, type IngressNginxConfigMapKey } from '../model/settings/ingressNginxConfigMapKeys.js';
import { parseGlobalSettings, type SettingsEnvironment } from '../model/settings/parseGlobalSettings.js';
import type { ConfigMapFinding, IgnoredKey } from './checkReport.js';

const KNOWN_KEYS: ReadonlyMap<string, IngressNginxConfigMapKey> = new Map(INGRESS_NGINX_CONFIGMAP_KEYS.map((entry) => [entry.key, entry]));

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
      ignoredKeys: parsed.unknownKeys.map(classifyIgnoredKey),
    },
  };
}

function classifyIgnoredKey(key: string): IgnoredKey {
  const known = KNOWN_KEYS.get(key);
  if (known === undefined) return { key, kind: 'unknown', reason: 'not a ConfigMap key of ingress-nginx v1.15.1; ignored' };
  if (known.refusedBecause !== undefined) return { key, kind: 'refused', reason: known.refusedBecause };
  if (known.missingModule !== undefined) {
    return {
      key,
      kind: 'missing-module',
      reason: `Debian 12's nginx has no ${known.missingModule} module, so Portico cannot apply it; ignored`,
    };
  }
  const note = known.note === undefined ? '' : ` (${known.note})`;
  return { key, kind: 'not-implemented', reason: `not implemented by Portico yet; ignored${note}` };
}
