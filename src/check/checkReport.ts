// What `portico check` found: the document `-o json` prints (docs/portico-check.md
// describes it field by field; its shape changes only with `version`).

/** Bumped when a field changes meaning or goes away; new fields may appear without it. */
export const CHECK_REPORT_VERSION = 1;

import type { IgnoredKeyKind } from '../model/settings/ingressNginxConfigMapKeys.js';

export interface CheckReport {
  version: typeof CHECK_REPORT_VERSION;
  /** Whether anything below would behave differently under Portico (the exit code is 1 when true). */
  changes: boolean;
  /** The Ingresses of this controller's class, by namespace then name. */
  ingresses: IngressFinding[];
  configMap: ConfigMapFinding;
  /** Set with `--from-deployment`. */
  deployment?: DeploymentFinding;
  /** Problems of the controller's own settings (default backend, default certificate), as the controller logs them. */
  warnings: string[];
}

/** One route Portico serves for an Ingress: `host` is `_` for rules without a host (the catch-all server). */
export interface ServedPath {
  host: string;
  path: string;
  /** How the path matches (the model's PathMatch). */
  match: string;
}

export interface IngressFinding {
  namespace: string;
  name: string;
  /** `served`: Portico serves it (maybe with differences below); `refused`: Portico does not serve it. */
  status: 'served' | 'refused';
  /** Whether this Ingress would behave differently under Portico. */
  changes: boolean;
  /** What Portico routes for it (empty when refused; a canary's routes belong to its primary). */
  serves: ServedPath[];
  /** Why it is refused: invalid values, snippets while they are disabled, risk levels above annotations-risk-level. */
  refused: string[];
  /** Annotations Portico ignores (not implemented, a module Debian's nginx lacks, unknown names). */
  ignored: string[];
  /** The model's findings on the served Ingress (the Events the controller would record). */
  problems: IngressProblemFinding[];
}

export interface IngressProblemFinding {
  /** `warning`: part of the Ingress is not served as written (counts as a change); `info`: advice. */
  severity: 'warning' | 'info';
  reason: string;
  message: string;
}

export interface ConfigMapFinding {
  /** `--configmap` (`namespace/name`), or null when none is given. */
  name: string | null;
  /** Whether that ConfigMap exists (the controller uses the defaults when it does not). */
  found: boolean;
  /** Values refused (each key keeps its default), one message each. */
  refusedValues: string[];
  /** Keys Portico does not act on, sorted by key. */
  ignoredKeys: IgnoredKey[];
}

export interface IgnoredKey {
  key: string;
  kind: IgnoredKeyKind;
  reason: string;
}

export interface DeploymentFinding {
  /** `namespace/name`. */
  name: string;
  /** The container whose arguments were read. */
  container: string;
  /** Flags Portico would not honour, in the order of the arguments. */
  flags: FlagFinding[];
}

export interface FlagFinding {
  /** The argument as written, e.g. `--enable-topology-aware-routing=true`. */
  argument: string;
  /**
   * `cannot-apply`: its ingress-nginx meaning cannot apply (`reason` says why); `unknown`: Portico does not know it
   * (it would not start); `invalid`: Portico cannot parse its value (it would not start).
   */
  kind: 'cannot-apply' | 'unknown' | 'invalid';
  reason: string;
}
