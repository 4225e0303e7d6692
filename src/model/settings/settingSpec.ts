// How one ConfigMap key becomes one typed setting. The global settings are
// composed of groups (keys/*.ts), each with its interface, its defaults and its
// table of specs; parseGlobalSettings.ts reads every group's table.
import type { ParsedValue } from './valueSyntax.js';

/** What parsing needs to know about the machine nginx runs on (the caller reads it; the model stays pure). */
export interface SettingsEnvironment {
  /** CPUs nginx may use (os.availableParallelism()): what `auto` gives, and the base of the worker-processes bound. */
  cpus: number;
}

export interface SettingSpec<T> {
  /** The ingress-nginx ConfigMap key. */
  key: string;
  parse: (text: string, environment: SettingsEnvironment) => ParsedValue<T>;
  /** The value may span lines (line breaks and tabs pass the control-character check): snippets only. */
  multiLine?: true;
}

/** One spec per field of a settings group. */
export type SpecTable<S> = { readonly [K in keyof S]: SettingSpec<S[K]> };
