// satisfy: how the address filters (allowlist-source-range) combine with
// authentication (basic, digest or external): nginx's `satisfy`, rendered as
// ingress-nginx does, only when the annotation is set.
import { optionParser } from '../settings/valueSyntax.js';
import type { LocationAnnotations } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

const satisfy: AnnotationDefinition<'any' | 'all'> = {
  name: 'satisfy',
  risk: 'Low',
  // Case-insensitive, as ingress-nginx's validator.
  parse: optionParser(['any', 'all'], true),
};

export const satisfyAnnotations: AnnotationGroup<LocationAnnotations['satisfy']> = {
  annotations: [satisfy],
  resolve: (values) => values.get(satisfy),
};
