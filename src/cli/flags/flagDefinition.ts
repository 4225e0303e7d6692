// The shape of one row of the flag tables (flags/*.ts): a flag of
// ingress-nginx's pkg/flags/flags.go with its pflag kind and default.

/** How a flag's value is written and parsed (Go/pflag syntax). */
export type FlagKind = 'string' | 'bool' | 'int' | 'uint32' | 'float' | 'duration' | 'ip' | 'stringList' | 'floatList';

/** The parsed value of each kind. */
export interface FlagValueByKind {
  string: string;
  bool: boolean;
  int: number;
  uint32: number;
  float: number;
  /** In milliseconds (Go's `30s` is 30000). */
  duration: number;
  ip: string;
  stringList: readonly string[];
  floatList: readonly number[];
}

export type FlagValue = FlagValueByKind[FlagKind];

interface FlagDefinitionOfKind<K extends FlagKind> {
  readonly name: string;
  readonly kind: K;
  readonly default: FlagValueByKind[K];
  readonly description: string;
}

/**
 * Every flag is implemented, or says why ingress-nginx's meaning cannot apply
 * to Portico (e.g. it downloads over the network): none is accepted and
 * silently ignored. `cannotApply` on an implemented flag is the part that
 * cannot. `--help` and docs/compatibility.md show it, and giving the flag a
 * value other than its default logs it at start.
 */
type FlagImplementation =
  { readonly implemented: true; readonly cannotApply?: string } | { readonly implemented: false; readonly cannotApply: string };

/** One row of the table; the default's type follows the kind. */
export type FlagDefinition = { [K in FlagKind]: FlagDefinitionOfKind<K> & FlagImplementation }[FlagKind];
