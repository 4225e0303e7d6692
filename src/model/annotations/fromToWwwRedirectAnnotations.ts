// from-to-www-redirect (part of ingress-nginx's "redirect" group): a host
// `example.com` also gets a server for `www.example.com` that redirects there,
// and `www.example.com` one for `example.com`, over HTTP and HTTPS. Which
// server gets it, and when it is left out, is the model's (hostAliases.ts).
import { parseBoolean } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

const fromToWwwRedirect: AnnotationDefinition<boolean> = { name: 'from-to-www-redirect', risk: 'Low', parse: parseBoolean };

/** `true` when set to true; undefined otherwise, so locations without it compare equal to those that never had it. */
export const fromToWwwRedirectAnnotations: AnnotationGroup<true | undefined> = {
  annotations: [fromToWwwRedirect],
  resolve: (values) => (values.get(fromToWwwRedirect) === true ? true : undefined),
};
