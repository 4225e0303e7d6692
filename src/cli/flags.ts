// The command-line flags Portico accepts: every flag of ingress-nginx's
// pkg/flags/flags.go with the same name, type and default (so existing
// Deployments start unchanged), klog's `-v`, and Portico's own `--manifests` and `--nginx-prefix`.
// One table per topic in flags/; this is their concatenation, in the order `--help` and
// docs/compatibility.md list them. `implemented` says whether Portico acts on a flag yet;
// the others are accepted, and passing one is reported as ignored. `cannotApply` names why
// a flag's ingress-nginx meaning cannot apply to Portico (said at start when it is given).
import { FEATURE_FLAGS } from './flags/featureFlags.js';
import { LISTEN_FLAGS } from './flags/listenFlags.js';
import { METRICS_FLAGS } from './flags/metricsFlags.js';
import { PROCESS_FLAGS } from './flags/processFlags.js';
import { SCOPE_FLAGS } from './flags/scopeFlags.js';
import { SOURCE_FLAGS } from './flags/sourceFlags.js';
import { STATUS_FLAGS } from './flags/statusFlags.js';

import type { FlagValueByKind } from './flags/flagDefinition.js';

export type { FlagDefinition, FlagKind, FlagValue, FlagValueByKind } from './flags/flagDefinition.js';

export const FLAG_DEFINITIONS = [
  ...SCOPE_FLAGS,
  ...SOURCE_FLAGS,
  ...LISTEN_FLAGS,
  ...FEATURE_FLAGS,
  ...STATUS_FLAGS,
  ...METRICS_FLAGS,
  ...PROCESS_FLAGS,
] as const;

export type FlagName = (typeof FLAG_DEFINITIONS)[number]['name'];

/** `watch-namespace` → `watchNamespace`, at the type level. */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** All flag values, one camelCase property per flag (e.g. `flags.syncRateLimit`). */
export type Flags = {
  readonly [D in (typeof FLAG_DEFINITIONS)[number] as CamelCase<D['name']>]: FlagValueByKind[D['kind']];
};

/** `watch-namespace` → `watchNamespace`: the property of a flag in {@link Flags}. */
export function flagPropertyName(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}
