// auth-type, auth-secret, auth-secret-type, auth-realm: basic and digest
// authentication against users from a Secret, as ingress-nginx's "auth"
// group. Only the reference is parsed here; the Secret itself is read by the
// model on every run (basicAuthSecret.ts), so a Secret edit applies without
// an Ingress edit.
import { parseObjectReference, type ObjectReference } from '../objectReference.js';
import { optionParser, patternParser } from '../settings/valueSyntax.js';
import type { BasicAuth, LocationAnnotations } from '../types.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup } from './annotationDefinition.js';

const authType: AnnotationDefinition<BasicAuth['type']> = {
  name: 'auth-type',
  risk: 'Low',
  // ingress-nginx matches an unanchored `basic|digest` and treats anything but "basic" as digest; only the two words are taken here.
  parse: optionParser(['basic', 'digest']),
};

const authSecret: AnnotationDefinition<ObjectReference> = {
  name: 'auth-secret',
  risk: 'Medium',
  parse: parseObjectReference,
};

const authSecretType: AnnotationDefinition<BasicAuth['secretType']> = {
  name: 'auth-secret-type',
  risk: 'Low',
  parse: optionParser(['auth-file', 'auth-map']),
};

const authRealm: AnnotationDefinition<string> = {
  name: 'auth-realm',
  // Medium as in ingress-nginx; its character set (CharsWithSpace): no quote or backslash can reach the WWW-Authenticate header.
  risk: 'Medium',
  parse: patternParser(/^[-._~a-zA-Z0-9/: ]+$/, 'letters, digits, spaces and - . _ ~ / :'),
};

const SETTINGS = [authSecret, authSecretType, authRealm];

export const basicAuthAnnotations: AnnotationGroup<LocationAnnotations['basicAuth']> = {
  annotations: [authType, ...SETTINGS],
  // As ingress-nginx: without auth-type the other three do nothing (and no authentication applies).
  issues: (values) =>
    values.get(authType) === undefined ? issuesIfSet(values, SETTINGS, 'ignored', 'ignored: it has no effect without auth-type') : [],
  resolve: (values) => {
    const type = values.get(authType);
    if (type === undefined) return undefined;
    return {
      type,
      realm: values.get(authRealm) ?? '',
      secret: values.get(authSecret),
      secretType: values.get(authSecretType) ?? 'auth-file',
      users: undefined,
    };
  },
};
