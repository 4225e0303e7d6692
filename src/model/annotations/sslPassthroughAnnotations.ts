// ssl-passthrough (ingress-nginx's sslpassthrough group): with
// --enable-ssl-passthrough, TLS connections for the Ingress's hosts go by SNI
// to the backend of the host's `/` path, which terminates TLS itself
// (model/stream/passthroughHosts.ts). Without the flag the host is served as
// any other, with a warning on the Ingress.
import { parseBoolean } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

const sslPassthrough: AnnotationDefinition<boolean> = { name: 'ssl-passthrough', risk: 'Low', parse: parseBoolean };

/** `true` when set to true; undefined otherwise, so locations without it compare equal to those that never had it. */
export const sslPassthroughAnnotations: AnnotationGroup<true | undefined> = {
  annotations: [sslPassthrough],
  resolve: (values) => (values.get(sslPassthrough) === true ? true : undefined),
};
