// Which Ingresses this controller serves, decided as ingress-nginx decides it
// (store.go GetIngressClass and the IngressClass event filter), plus the
// Kubernetes default-class annotation for Ingresses that name no class.
import type { Ingress, IngressClass } from '../kube/objects.js';

export const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
export const DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';

export interface IngressClassSettings {
  /** `--ingress-class`: the value of the class annotation we answer to. */
  ingressClass: string;
  /** `--controller-class`: IngressClass.spec.controller we answer to. */
  controllerClass: string;
  /** `--ingress-class-by-name`: also own the IngressClass named `--ingress-class`. */
  ingressClassByName: boolean;
  /** `--watch-ingress-without-class`. */
  watchIngressWithoutClass: boolean;
}

export function isOwnIngressClass(ingressClass: IngressClass, settings: IngressClassSettings): boolean {
  if (settings.ingressClassByName && ingressClass.metadata?.name === settings.ingressClass) return true;
  return ingressClass.spec?.controller === settings.controllerClass;
}

export type ClassDecision = { managed: true; className: string } | { managed: false; reason: string };

/**
 * `ownClasses` holds only the IngressClasses for which `isOwnIngressClass` is
 * true, by name. `spec.ingressClassName` decides alone when set; then the
 * annotation; then an Ingress with no class is ours with
 * `--watch-ingress-without-class` or when one of our classes is the default.
 */
export function decideIngressClass(
  ingress: Ingress,
  ownClasses: ReadonlyMap<string, IngressClass>,
  settings: IngressClassSettings,
): ClassDecision {
  const className = ingress.spec?.ingressClassName;
  if (className) {
    return ownClasses.has(className)
      ? { managed: true, className }
      : { managed: false, reason: `IngressClass "${className}" is not served by controller ${settings.controllerClass}` };
  }
  const annotation = ingress.metadata?.annotations?.[CLASS_ANNOTATION];
  if (annotation !== undefined) {
    return annotation === settings.ingressClass
      ? { managed: true, className: annotation }
      : { managed: false, reason: `annotation ${CLASS_ANNOTATION}="${annotation}" is not "${settings.ingressClass}"` };
  }
  if (settings.watchIngressWithoutClass) return { managed: true, className: '_' };
  for (const ingressClass of ownClasses.values()) {
    if (ingressClass.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true') {
      return { managed: true, className: ingressClass.metadata.name ?? '' };
    }
  }
  return { managed: false, reason: 'no ingress class (set spec.ingressClassName, or --watch-ingress-without-class)' };
}

/** An Ingress with only `spec.defaultBackend` and no rules claims every unmatched request. */
export function isCatchAllIngress(ingress: Ingress): boolean {
  return ingress.spec?.defaultBackend !== undefined && (ingress.spec.rules ?? []).length === 0;
}
