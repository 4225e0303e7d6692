// Runs parseIngressAnnotations as the model does, with the default prefix and
// the ConfigMap defaults unless a test overrides them.
import assert from 'node:assert/strict';
import { parseIngressAnnotations, type AnnotationParseResult } from '../../../src/model/annotations/parseIngressAnnotations.js';
import { DEFAULT_SETTINGS, type GlobalSettings } from '../../../src/model/settings/globalSettings.js';
import type { IngressAnnotations } from '../../../src/model/types.js';

export const PREFIX = 'nginx.ingress.kubernetes.io';

/** `{ 'rewrite-target': '/' }` → `{ 'nginx.ingress.kubernetes.io/rewrite-target': '/' }`. */
export function prefixed(annotations: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations).map(([name, value]) => [`${PREFIX}/${name}`, value]));
}

export function parseNamed(annotations: Record<string, string>, settings: Partial<GlobalSettings> = {}): AnnotationParseResult {
  return parseIngressAnnotations(prefixed(annotations), { prefix: PREFIX, settings: { ...DEFAULT_SETTINGS, ...settings } });
}

export function accepted(
  annotations: Record<string, string>,
  settings: Partial<GlobalSettings> = {},
): { value: IngressAnnotations; warnings: string[] } {
  const result = parseNamed(annotations, settings);
  assert.ok(result.ok, `expected ${JSON.stringify(annotations)} to be accepted, got ${JSON.stringify(result)}`);
  return result;
}

export function refused(annotations: Record<string, string>, settings: Partial<GlobalSettings> = {}): string[] {
  const result = parseNamed(annotations, settings);
  assert.ok(!result.ok, `expected ${JSON.stringify(annotations)} to be refused, got ${JSON.stringify(result)}`);
  return result.errors;
}

/** Asserts exactly one error, mentioning every fragment. */
export function assertRefusedWith(annotations: Record<string, string>, fragments: string[], settings: Partial<GlobalSettings> = {}): void {
  const errors = refused(annotations, settings);
  assert.equal(errors.length, 1, errors.join('\n'));
  for (const fragment of fragments) {
    assert.ok(errors[0]?.includes(fragment), `${JSON.stringify(errors[0])} lacks ${JSON.stringify(fragment)}`);
  }
}
