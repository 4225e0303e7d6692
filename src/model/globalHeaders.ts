// add-headers and proxy-set-headers: the ConfigMaps the global ConfigMap names,
// read from the store at every model run (the store re-syncs when one changes,
// syncLoop.ts tells it which). As ingress-nginx, a ConfigMap that is missing
// gives no headers and a warning. Unlike ingress-nginx, which writes every entry
// into nginx.conf as it is, an entry nginx would refuse (or that would break out
// of its directive) is left out with a warning, and the rest apply.
import type { ConfigMap } from '../kube/objects.js';
import { isKnownLogVariable } from './settings/logFormatVariables.js';
import type { HeaderSettings } from './settings/keys/headerSettings.js';
import { parseHeaderName, quoteValue } from './settings/valueSyntax.js';

export type HeaderEntry = [name: string, value: string];

/** The headers of the ConfigMaps add-headers and proxy-set-headers name, sorted by name. */
export interface GlobalHeaders {
  /** add-headers: set on every response (headers-more's more_set_headers in the http block). */
  response: HeaderEntry[];
  /** proxy-set-headers: sent to every backend (proxy_set_header in every proxied location). */
  request: HeaderEntry[];
}

/**
 * Printable ASCII (spaces included, as the custom-headers annotation's values),
 * at most 2048 characters so the directive stays one nginx token; empty for
 * proxy-set-headers means "do not send the header", as in nginx.
 */
const HEADER_VALUE = /^[\x20-\x7e]{0,2048}$/;

/** `$name` or `${name}`: nginx interpolates both directives' values, as ingress-nginx's template lets it. */
const VARIABLE_REFERENCE = /\$(?:([A-Za-z0-9_]+)|\{([A-Za-z0-9_]+)\})/g;

/** Why nginx would refuse the header, or undefined. */
export function globalHeaderProblem(name: string, value: string): string | undefined {
  if (!parseHeaderName(name).ok) return `header name ${quoteValue(name)} is not letters, digits, "-" and "_"`;
  if (!HEADER_VALUE.test(value)) return `the value of ${name} is not printable ASCII of at most 2048 characters`;
  // Every `$` must start a reference to a variable nginx.conf has: an unknown one fails the reload.
  const unreferenced = value.replace(VARIABLE_REFERENCE, '');
  if (unreferenced.includes('$')) return `the value of ${name} has a "$" that starts no variable reference ($name or \${name})`;
  for (const [, bare, braced] of value.matchAll(VARIABLE_REFERENCE)) {
    const variable = bare ?? braced ?? '';
    if (!isKnownLogVariable(variable)) return `the value of ${name} names $${variable}, a variable nginx.conf does not have`;
  }
  return undefined;
}

/**
 * The Configuration's `globalHeaders` from both ConfigMaps (none when neither
 * key is set, so such a configuration stays as it was); every problem is pushed to `warnings`.
 */
export function resolveGlobalHeaders(
  settings: Pick<HeaderSettings, 'addHeaders' | 'proxySetHeaders'>,
  configMap: (key: string) => ConfigMap | undefined,
  warnings: string[],
): { globalHeaders?: GlobalHeaders } {
  if (settings.addHeaders === undefined && settings.proxySetHeaders === undefined) return {};
  return {
    globalHeaders: {
      response: headerEntries('add-headers', settings.addHeaders, configMap, warnings),
      request: headerEntries('proxy-set-headers', settings.proxySetHeaders, configMap, warnings),
    },
  };
}

/** The `namespace/name` keys of the ConfigMaps the settings name: the store re-syncs when one changes. */
export function globalHeaderConfigMaps(settings: Pick<HeaderSettings, 'addHeaders' | 'proxySetHeaders'>): string[] {
  return [settings.addHeaders, settings.proxySetHeaders].filter((key): key is string => key !== undefined);
}

function headerEntries(
  setting: string,
  key: string | undefined,
  configMap: (key: string) => ConfigMap | undefined,
  warnings: string[],
): HeaderEntry[] {
  if (key === undefined) return [];
  const source = configMap(key);
  if (source === undefined) {
    warnings.push(`ConfigMap key ${setting}: ConfigMap ${key} not found; no headers from it`);
    return [];
  }
  const entries: HeaderEntry[] = [];
  for (const [name, value] of Object.entries(source.data ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const problem = globalHeaderProblem(name, value);
    if (problem === undefined) entries.push([name, value]);
    else warnings.push(`ConfigMap key ${setting}: ConfigMap ${key}: ${problem}; that header is left out`);
  }
  return entries;
}
