// The ConfigMap's snippets: raw nginx configuration for the main context
// (main-snippet), the http block (http-snippet), every server (server-snippet),
// every location (location-snippet), ModSecurity's rules of the http block
// (modsecurity-snippet) and the stream block (stream-snippet, at its end,
// which it alone may bring into being). ingress-nginx writes them whatever
// allow-snippet-annotations says; Portico writes them only when it is "true"
// ("snippets stay off unless an administrator turns them on"), but not subject
// to annotations-risk-level, which is about who may edit an Ingress, while the
// ConfigMap is the administrator's own. Values may span lines (a YAML block).
import type { SpecTable } from '../settingSpec.js';
import { parseAnyText } from '../valueSyntax.js';

export interface GlobalSnippetSettings {
  /** main-snippet */
  mainSnippet: string | undefined;
  /** http-snippet */
  httpSnippet: string | undefined;
  /** server-snippet */
  serverSnippet: string | undefined;
  /** location-snippet */
  locationSnippet: string | undefined;
  /** modsecurity-snippet: replaces Portico's modsecurity.conf in the http block (with enable-modsecurity) */
  modsecuritySnippet: string | undefined;
  /** stream-snippet: at the end of the stream block (renderStream.ts), after the Ingresses' stream-snippet annotations */
  streamSnippet: string | undefined;
}

export const GLOBAL_SNIPPET_DEFAULTS: GlobalSnippetSettings = {
  mainSnippet: undefined,
  httpSnippet: undefined,
  serverSnippet: undefined,
  locationSnippet: undefined,
  modsecuritySnippet: undefined,
  streamSnippet: undefined,
};

/** An empty snippet is none (ingress-nginx's `if not (empty ...)`). */
const parseSnippet = (text: string) => {
  const parsed = parseAnyText(text);
  return parsed.ok && parsed.value === '' ? { ok: true as const, value: undefined } : parsed;
};

export const GLOBAL_SNIPPET_SPECS: SpecTable<GlobalSnippetSettings> = {
  mainSnippet: { key: 'main-snippet', parse: parseSnippet, multiLine: true },
  httpSnippet: { key: 'http-snippet', parse: parseSnippet, multiLine: true },
  serverSnippet: { key: 'server-snippet', parse: parseSnippet, multiLine: true },
  locationSnippet: { key: 'location-snippet', parse: parseSnippet, multiLine: true },
  modsecuritySnippet: { key: 'modsecurity-snippet', parse: parseSnippet, multiLine: true },
  streamSnippet: { key: 'stream-snippet', parse: parseSnippet, multiLine: true },
};

/**
 * Leaves out every snippet while the ConfigMap does not set
 * allow-snippet-annotations: "true", with one problem naming the keys
 * (parseGlobalSettings reports it as it reports a refused value).
 */
export function withoutRefusedSnippets(settings: GlobalSnippetSettings & { allowSnippetAnnotations: boolean }): string[] {
  if (settings.allowSnippetAnnotations) return [];
  const set = (Object.keys(GLOBAL_SNIPPET_SPECS) as (keyof GlobalSnippetSettings)[]).filter((field) => settings[field] !== undefined);
  if (set.length === 0) return [];
  for (const field of set) settings[field] = undefined;
  const keys = set.map((field) => GLOBAL_SNIPPET_SPECS[field].key).join(', ');
  return [`ConfigMap keys ${keys}: snippets are ignored unless the ConfigMap sets allow-snippet-annotations: "true"`];
}
