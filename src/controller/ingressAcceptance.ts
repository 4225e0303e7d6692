// Which version of each Ingress is served. A new version whose annotations or
// paths are invalid is refused (and reported) while the last good version
// keeps serving, as in ingress-nginx. Versions are validated once, and again
// only when the global settings change. A version nginx refused
// (refusalContainment.ts) is quarantined until a new version arrives.
import { objectKey, type Ingress } from '../kube/objects.js';
import { modSecurityUnavailable, type ModSecurityInstallation } from '../model/annotations/modSecurityAnnotations.js';
import { parseIngressAnnotations } from '../model/annotations/parseIngressAnnotations.js';
import type { AcceptedIngress } from '../model/buildConfiguration.js';
import type { GlobalSettings } from '../model/settings/globalSettings.js';
import { validateIngressPaths } from '../model/validateIngressPaths.js';
import { ingressNameErrors } from '../model/ingressNames.js';
import { deepInspectionErrors } from '../model/deepInspection.js';
import { probeModSecurity } from '../dataplane/nginx/modSecurityFiles.js';

export interface Refusal {
  ingress: Ingress;
  errors: string[];
  /** Whether an older version keeps serving. */
  servingPrevious: boolean;
}

export interface AcceptanceResult {
  accepted: AcceptedIngress[];
  /** Versions refused in this round (reported once per version by the caller). */
  refused: Refusal[];
  /** Annotation warnings (e.g. not implemented yet) of versions accepted in this round. */
  warnings: { ingress: Ingress; messages: string[] }[];
}

interface Entry {
  /** The version last looked at, accepted or not. */
  seen: Ingress;
  /** The version being served, if any ever passed. */
  accepted: AcceptedIngress | undefined;
  /** `seen` passed validation but nginx refused it; `accepted` is the version nginx ran before, if any. */
  quarantined?: true;
}

export class IngressAcceptance {
  private readonly entries = new Map<string, Entry>();
  private readonly keys = new WeakMap<Ingress, string>();
  private settings: GlobalSettings | undefined;

  /** `deepInspect`: --deep-inspect. */
  constructor(
    private readonly annotationsPrefix: string,
    private readonly deepInspect = true,
  ) {}

  update(served: readonly Ingress[], settings: GlobalSettings): AcceptanceResult {
    const revalidateAll = settings !== this.settings;
    this.settings = settings;
    const result: AcceptanceResult = { accepted: [], refused: [], warnings: [] };
    const present = new Set<string>();
    for (const ingress of served) {
      const key = this.keyOf(ingress);
      present.add(key);
      let entry = this.entries.get(key);
      if (entry?.quarantined && entry.seen === ingress) {
        // Still refused by nginx; its fallback must pass new settings too.
        if (revalidateAll && entry.accepted) entry = { ...entry, accepted: this.revalidates(entry.accepted.ingress, settings) };
        this.entries.set(key, entry);
      } else if (!entry || entry.seen !== ingress || revalidateAll) {
        entry = this.validate(ingress, settings, entry, revalidateAll, result);
        this.entries.set(key, entry);
      }
      if (entry.accepted) result.accepted.push(entry.accepted);
    }
    for (const key of this.entries.keys()) if (!present.has(key)) this.entries.delete(key);
    return result;
  }

  /**
   * nginx refused `ingress` (this very version): serve `fallback` (the
   * version nginx ran before) or nothing, until a new version arrives. False
   * when it is no longer the version in hand, or is quarantined already.
   */
  quarantine(ingress: Ingress, fallback: AcceptedIngress | undefined): boolean {
    const key = objectKey(ingress);
    const entry = this.entries.get(key);
    if (entry === undefined || entry.seen !== ingress || entry.quarantined) return false;
    this.entries.set(key, { seen: ingress, accepted: fallback, quarantined: true });
    return true;
  }

  /** objectKey, once per object: the same string at every sync (hashed once), not a new one. */
  private keyOf(ingress: Ingress): string {
    let key = this.keys.get(ingress);
    if (key === undefined) {
      key = objectKey(ingress);
      this.keys.set(ingress, key);
    }
    return key;
  }

  private validate(
    ingress: Ingress,
    settings: GlobalSettings,
    previous: Entry | undefined,
    settingsChanged: boolean,
    result: AcceptanceResult,
  ): Entry {
    const verdict = judgeIngressVersion(ingress, this.annotationsPrefix, settings, undefined, this.deepInspect);
    if (verdict.ok) {
      if (verdict.warnings.length > 0) result.warnings.push({ ingress, messages: verdict.warnings });
      return { seen: ingress, accepted: verdict.accepted };
    }
    // The last good version keeps serving; when the settings changed it must pass them too.
    const fallback = previous?.accepted;
    const kept = fallback && settingsChanged ? this.revalidates(fallback.ingress, settings) : fallback;
    result.refused.push({ ingress, errors: verdict.errors, servingPrevious: kept !== undefined });
    return { seen: ingress, accepted: kept };
  }

  /** The previous version under the current settings, if it still passes. */
  private revalidates(ingress: Ingress, settings: GlobalSettings): AcceptedIngress | undefined {
    const verdict = judgeIngressVersion(ingress, this.annotationsPrefix, settings, undefined, this.deepInspect);
    return verdict.ok ? verdict.accepted : undefined;
  }
}

export type IngressVerdict = { ok: true; accepted: AcceptedIngress; warnings: string[] } | { ok: false; errors: string[] };

let installedModSecurity: ModSecurityInstallation | undefined;

/** This machine's ModSecurity, probed once. */
function machineModSecurity(): ModSecurityInstallation {
  installedModSecurity ??= probeModSecurity();
  return installedModSecurity;
}

/**
 * Whether one Ingress version may be served: its annotations and its paths (the sync loop and admission share it),
 * and whether the data plane has the ModSecurity it asks for (`modSecurity`: the machine's unless a test says otherwise);
 * `deepInspect` (--deep-inspect) adds ingress-nginx's deep inspection of hosts, paths and TLS Secret names.
 */
export function judgeIngressVersion(
  ingress: Ingress,
  annotationsPrefix: string,
  settings: GlobalSettings,
  modSecurity: ModSecurityInstallation = machineModSecurity(),
  deepInspect = true,
): IngressVerdict {
  const annotations = parseIngressAnnotations(ingress.metadata?.annotations, { prefix: annotationsPrefix, settings });
  const rewrite = annotations.ok ? annotations.value.location.rewrite : undefined;
  const pathErrors = [
    ...(deepInspect ? deepInspectionErrors(ingress) : []),
    ...validateIngressPaths(ingress, settings.strictValidatePathType, rewrite),
    ...ingressNameErrors(ingress),
  ];
  const missing = annotations.ok ? modSecurityUnavailable(annotations.value.location.modSecurity, modSecurity) : [];
  if (annotations.ok && pathErrors.length === 0 && missing.length === 0) {
    return { ok: true, accepted: { ingress, annotations: annotations.value }, warnings: annotations.warnings };
  }
  return { ok: false, errors: [...(annotations.ok ? [] : annotations.errors), ...pathErrors, ...missing] };
}
