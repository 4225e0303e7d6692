// The registries docs/compatibility.md is rendered from, as this checkout has them.
import { isDeepStrictEqual } from 'node:util';
import { flagDefaultText } from '../../src/cli/commandLine.js';
import { FLAG_DEFINITIONS } from '../../src/cli/flags.js';
import { KNOWN_ANNOTATIONS } from '../../src/model/annotations/annotationRegistry.js';
import { INGRESS_NGINX_ANNOTATION_SECTIONS } from '../../src/model/annotations/ingressNginxAnnotations.js';
import { DEFAULT_SETTINGS, type GlobalSettings } from '../../src/model/settings/globalSettings.js';
import { INGRESS_NGINX_CONFIGMAP_KEYS } from '../../src/model/settings/ingressNginxConfigMapKeys.js';
import { FIELD_BY_KEY, parseGlobalSettings } from '../../src/model/settings/parseGlobalSettings.js';
import type { CompatibilitySources } from './renderCompatibility.js';

/** worker-processes is the only setting whose parser asks the machine; one CPU keeps the text the same everywhere. */
const ONE_CPU = { cpus: 1 };

export function currentSources(): CompatibilitySources {
  const ingressNginxDefaults = new Map(INGRESS_NGINX_CONFIGMAP_KEYS.map((key) => [key.key, key.default]));
  return {
    annotations: KNOWN_ANNOTATIONS,
    annotationSections: INGRESS_NGINX_ANNOTATION_SECTIONS,
    configMapKeys: INGRESS_NGINX_CONFIGMAP_KEYS,
    implementedKeys: new Map(
      [...FIELD_BY_KEY].map(([key, field]) => [key, { differentDefault: differentDefault(key, field, ingressNginxDefaults.get(key)) }]),
    ),
    flags: FLAG_DEFINITIONS,
    flagDefault: flagDefaultText,
  };
}

/**
 * Portico's default of a key (a list's items, or the one value), when it is not ingress-nginx's: when
 * Portico's own parser, given ingress-nginx's default, yields another value
 * (or refuses it, as `<Number of CPUs>`).
 */
function differentDefault(key: string, field: keyof GlobalSettings, ingressNginxDefault: string | undefined): string[] | undefined {
  const portico = DEFAULT_SETTINGS[field];
  // An unset setting is ingress-nginx's empty default.
  if (portico === undefined && (ingressNginxDefault ?? '') === '') return undefined;
  if (ingressNginxDefault !== undefined) {
    const parsed = parseGlobalSettings({ [key]: ingressNginxDefault }, ONE_CPU);
    if (parsed.problems.length === 0 && isDeepStrictEqual(parsed.settings[field], portico)) return undefined;
  }
  const shown = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
  return Array.isArray(portico) ? portico.map(shown) : [shown(portico)];
}
