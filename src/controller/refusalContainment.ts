// The second line of defence behind the model's validation: when nginx
// refuses a configuration, which object to leave out so that everything else
// is applied. The data plane names the origin of the line nginx refused (an
// Ingress, the global settings, Portico itself); this decides what that means,
// from what nginx last ran, and bounds the retries: every containment leaves
// out an object version not left out before, and a run of them stops after
// MAX_CONTAINMENT_ROUNDS until nginx accepts a configuration again.
import { objectKey, type ConfigMap, type Ingress } from '../kube/objects.js';
import type { AcceptedIngress } from '../model/buildConfiguration.js';
import { DEFAULT_SETTINGS, type GlobalSettings } from '../model/settings/globalSettings.js';
import type { Refused } from '../dataplane/dataPlane.js';

/** Consecutive refused configurations traced to objects before Portico waits for the next change (each try may cost an nginx -t). */
export const MAX_CONTAINMENT_ROUNDS = 8;

/** The settings a configuration was built with, and the ConfigMap version they came from. */
export interface SettingsVersion {
  source: ConfigMap | undefined;
  settings: GlobalSettings;
}

/** What one configuration handed to the data plane was built from. */
export interface Attempt {
  accepted: readonly AcceptedIngress[];
  settings: SettingsVersion;
}

export type Containment =
  /** Refuse this Ingress version; `fallback` is the version nginx last ran, if any. */
  | { kind: 'ingress'; ingress: Ingress; fallback: AcceptedIngress | undefined }
  /** Refuse this ConfigMap version; `fallback` are the settings nginx last ran (undefined: the defaults). */
  | { kind: 'configMap'; source: ConfigMap | undefined; fallback: SettingsVersion | undefined }
  /** Nothing to leave out: the running configuration stays. */
  | { kind: 'none'; reason: string };

export class RefusalContainment {
  /** The Ingress versions in the configuration nginx runs, by `namespace/name`. */
  private acceptedByNginx = new Map<string, AcceptedIngress>();
  private runningSettings: SettingsVersion | undefined;
  private rounds = 0;

  /** nginx runs the configuration built from `attempt`. */
  accepted(attempt: Attempt): void {
    this.acceptedByNginx = new Map(attempt.accepted.map((entry) => [objectKey(entry.ingress), entry]));
    this.runningSettings = attempt.settings;
    this.rounds = 0;
  }

  /** Whether another configuration without the contained object should be tried at once. */
  get mayRetry(): boolean {
    return this.rounds < MAX_CONTAINMENT_ROUNDS;
  }

  /** What to leave out after nginx refused the configuration built from `attempt`. */
  contain(refused: Refused, attempt: Attempt): Containment {
    const origin = refused.origin;
    if (origin === undefined) return { kind: 'none', reason: 'nginx named no line Portico can trace to an object' };
    if (origin.kind === 'portico') return { kind: 'none', reason: 'nginx refused a line Portico writes whatever the objects say' };
    if (origin.kind === 'settings') return this.containSettings(attempt);
    const key = `${origin.ingress.namespace}/${origin.ingress.name}`;
    const entry = attempt.accepted.find((candidate) => objectKey(candidate.ingress) === key);
    if (entry === undefined)
      return { kind: 'none', reason: `the refused line names Ingress ${key}, which the configuration does not hold` };
    const fallback = this.acceptedByNginx.get(key);
    // nginx ran this very version: what changed since is the settings (its locations take their defaults), or nothing of an object.
    if (fallback?.ingress === entry.ingress) return this.containSettings(attempt);
    this.rounds++;
    return { kind: 'ingress', ingress: entry.ingress, fallback };
  }

  private containSettings(attempt: Attempt): Containment {
    const fallback = this.runningSettings;
    // Without a ConfigMap, and before nginx ran anything, the settings are the defaults already.
    const alreadyFallen = attempt.settings.settings === (fallback?.settings ?? DEFAULT_SETTINGS);
    if (alreadyFallen || (fallback === undefined && attempt.settings.source === undefined)) {
      return { kind: 'none', reason: 'the settings nginx refused are already the last accepted ones (or the defaults)' };
    }
    this.rounds++;
    return { kind: 'configMap', source: attempt.settings.source, fallback };
  }
}
