// The shape every implemented annotation and annotation group has, after
// ingress-nginx's parser.Annotation: a name, a risk level and a validator per
// annotation, and one function per group that turns validated values (plus the
// ConfigMap's defaults) into its part of LocationAnnotations.
import type { GlobalSettings, RiskLevel } from '../settings/globalSettings.js';
import type { ValueParser } from '../settings/valueSyntax.js';
import type { LocationAnnotations } from '../types.js';

export interface AnnotationDefinition<T> {
  /** The name after `<prefix>/`. */
  name: string;
  /** Deprecated names accepted for the same annotation; the canonical name wins when both are set. */
  aliases?: readonly string[];
  /** Aliases share it: a renamed annotation is exactly as risky (CVE-2026-3288 follow-up). */
  risk: RiskLevel;
  /** Validates and converts a value (already trimmed, non-empty, free of control characters). */
  parse: ValueParser<T>;
}

/** The validated values of one Ingress's annotations; undefined when an annotation is not set. */
export interface AnnotationValues {
  get<T>(definition: AnnotationDefinition<T>): T | undefined;
}

/** A group fills one property of LocationAnnotations; unset annotations take the ConfigMap's defaults. */
export interface AnnotationGroup<K extends keyof LocationAnnotations> {
  annotations: readonly AnnotationDefinition<unknown>[];
  resolve(values: AnnotationValues, settings: GlobalSettings): LocationAnnotations[K];
}
