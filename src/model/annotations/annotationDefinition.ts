// The shape every implemented annotation and annotation group has, after
// ingress-nginx's parser.Annotation: a name, a risk level and a validator per
// annotation, and one function per group that turns validated values (plus the
// ConfigMap's defaults) into its part of IngressAnnotations.
import type { GlobalSettings, RiskLevel } from '../settings/globalSettings.js';
import type { ValueParser } from '../settings/valueSyntax.js';

export interface AnnotationDefinition<T> {
  /** The name after `<prefix>/`. */
  name: string;
  /** Deprecated names accepted for the same annotation; the canonical name wins when both are set. */
  aliases?: readonly string[];
  /** Aliases share it: a renamed annotation is exactly as risky (CVE-2026-3288 follow-up). */
  risk: RiskLevel;
  /** Validates and converts a value (already trimmed, non-empty, free of control characters but the line breaks and tabs of LINE_BROKEN_SNIPPETS). */
  parse: ValueParser<T>;
}

/** The validated values of one Ingress's annotations; undefined when an annotation is not set. */
export interface AnnotationValues {
  get<T>(definition: AnnotationDefinition<T>): T | undefined;
}

/**
 * A rule across annotations, each valid on its own: a `refused` issue refuses
 * the Ingress, an `ignored` one only warns that the annotation has no effect.
 */
export interface AnnotationIssue {
  /** The annotation the issue is reported on (a set one). */
  annotation: AnnotationDefinition<unknown>;
  verdict: 'refused' | 'ignored';
  reason: string;
}

/** A group fills one part of IngressAnnotations; unset annotations take the ConfigMap's defaults. */
export interface AnnotationGroup<T> {
  annotations: readonly AnnotationDefinition<unknown>[];
  /** Checked once every value of the Ingress passed its own validator. */
  issues?(values: AnnotationValues, settings: GlobalSettings): AnnotationIssue[];
  resolve(values: AnnotationValues, settings: GlobalSettings): T;
}

/** An issue with `verdict` and `reason` for each of `annotations` that is set. */
export function issuesIfSet(
  values: AnnotationValues,
  annotations: readonly AnnotationDefinition<unknown>[],
  verdict: AnnotationIssue['verdict'],
  reason: string,
): AnnotationIssue[] {
  return annotations.filter((annotation) => values.get(annotation) !== undefined).map((annotation) => ({ annotation, verdict, reason }));
}
