// The admission decision for one Ingress: the checks the sync loop makes
// (class, annotations with their risk levels, paths), plus ingress-nginx's
// admission-only ones (a host+path another Ingress serves, a catch-all under
// --disable-catch-all, a path another Ingress's regex mode makes unservable), and the model run on the Ingress and its hosts'
// other Ingresses only. Pure: nothing here runs nginx or touches the network.
import { judgeIngressVersion } from '../controller/ingressAcceptance.js';
import { objectKey, type Ingress, type IngressClass } from '../kube/objects.js';
import { deprecationWarnings } from '../model/annotations/deprecatedAnnotations.js';
import { deepInspectionErrors } from '../model/deepInspection.js';
import { buildConfiguration, type AcceptedIngress, type ModelInput } from '../model/buildConfiguration.js';
import { ingressRef, sameIngress } from '../model/ingressRules.js';
import { isRegexHost, locationKey, UNSERVABLE_PATH } from '../model/locations.js';
import type { GlobalSettings } from '../model/settings/globalSettings.js';
import type { IngressProblem } from '../model/types.js';
import { decideIngressClass, isCatchAllIngress, type IngressClassSettings } from '../store/ingressClassFilter.js';
import type { AdmissionVerdict } from './admissionReview.js';
import { ownedPaths, type PathOwnership } from './pathOwnership.js';

/** What a review is checked against: the controller's settings and its last sync. */
export interface AdmissionContext {
  annotationsPrefix: string;
  settings: GlobalSettings;
  classSettings: IngressClassSettings;
  /** This controller's IngressClasses, by name. */
  ownClasses: ReadonlyMap<string, IngressClass>;
  /** `--watch-namespace` and `--watch-namespace-selector`. */
  watchesNamespace(namespace: string): boolean;
  /** `--disable-catch-all`. */
  disableCatchAll: boolean;
  /** The rule paths of the Ingresses accepted by the last sync. */
  paths: PathOwnership;
  /**
   * Whether the model runs on the candidate with the other Ingresses of its
   * hosts (so problems between them are found), or, under --disable-full-test,
   * on the candidate alone (ingress-nginx renders the submitted Ingress only).
   */
  fullTest: boolean;
  /** `--deep-inspect`: refuse what ingress-nginx's inspector refuses, whatever the Ingress's class. */
  deepInspect: boolean;
  /** The model's other inputs, as the sync loop passes them. */
  model: Omit<ModelInput, 'ingresses'>;
}

const ALLOWED_UNCHECKED: AdmissionVerdict = { allowed: true, warnings: [] };

export function reviewIngress(ingress: Ingress, context: AdmissionContext): AdmissionVerdict {
  // As ingress-nginx's CheckIngress: deep inspection comes before the class and namespace checks.
  const dangerous = context.deepInspect ? deepInspectionErrors(ingress) : [];
  if (dangerous.length > 0) return deny(dangerous);
  // As ingress-nginx: another controller's Ingresses are its business.
  if (!context.watchesNamespace(ingress.metadata?.namespace ?? '')) return ALLOWED_UNCHECKED;
  if (!decideIngressClass(ingress, context.ownClasses, context.classSettings).managed) return ALLOWED_UNCHECKED;
  if (context.disableCatchAll && isCatchAllIngress(ingress)) {
    return deny(['spec.defaultBackend: an Ingress with no rules is a catch-all, and this controller runs with --disable-catch-all']);
  }
  const verdict = judgeIngressVersion(ingress, context.annotationsPrefix, context.settings, undefined, context.deepInspect);
  const deprecated = deprecationWarnings(ingress.metadata?.annotations, context.annotationsPrefix);
  if (!verdict.ok) return deny(verdict.errors, deprecated);

  const { conflicts, neighbours } = checkPaths(verdict.accepted, context.paths);
  if (conflicts.length > 0) return deny(conflicts, deprecated);
  const problems = modelProblems(verdict.accepted, neighbours, context);
  // A path of its own that its host's regex mode (another Ingress's) makes unservable: the sync loop would drop it.
  const unservable = problems.filter((problem) => problem.reason === UNSERVABLE_PATH);
  if (unservable.length > 0)
    return deny(
      unservable.map((problem) => problem.message),
      deprecated,
    );
  const modelWarnings = problems.map((problem) => `${problem.reason}: ${problem.message}`);
  return { allowed: true, warnings: [...deprecated, ...verdict.warnings, ...modelWarnings] };
}

function deny(errors: readonly string[], warnings: readonly string[] = []): AdmissionVerdict {
  return { allowed: false, message: errors.join('; '), warnings };
}

/**
 * ingress-nginx's checkOverlap: a rule path may not take a location another
 * Ingress already has, unless exactly one of the two is a canary. Locations
 * are compared as the model places them (so `/a/` and `/a` Prefix are one,
 * and in a regex host Exact and Prefix of one path are one).
 */
function checkPaths(candidate: AcceptedIngress, ownership: PathOwnership): { conflicts: string[]; neighbours: Set<AcceptedIngress> } {
  const self = objectKey(candidate.ingress);
  const conflicts: string[] = [];
  const neighbours = new Set<AcceptedIngress>();
  for (const [host, own] of ownedPaths(candidate)) {
    const others = ownership.pathsOn(host, self);
    for (const other of others) neighbours.add(other.accepted);
    const regex = isRegexHost([...others, ...own]);
    for (const path of own) {
      const key = locationKey(path, regex);
      const owner = others.find((other) => other.canary === path.canary && locationKey(other, regex) === key);
      if (owner) {
        const where = `host "${host}" path "${path.path}" (pathType ${path.type})`;
        conflicts.push(
          path.canary ? `${where} already has a canary: Ingress ${owner.owner}` : `${where} is already served by Ingress ${owner.owner}`,
        );
      }
    }
  }
  return { conflicts, neighbours };
}

/**
 * The model's problems with the candidate, computed over it and the Ingresses sharing its hosts only
 * (over the candidate alone under --disable-full-test; the path overlap check above still sees them all, as in ingress-nginx).
 */
function modelProblems(candidate: AcceptedIngress, neighbours: ReadonlySet<AcceptedIngress>, context: AdmissionContext): IngressProblem[] {
  const tested = context.fullTest ? [candidate, ...neighbours] : [candidate];
  const result = buildConfiguration({ ...context.model, ingresses: tested });
  const ref = ingressRef(candidate.ingress);
  return result.problems.filter((problem) => sameIngress(problem.ingress, ref));
}
