// custom-headers, as ingress-nginx's customheaders group: a ConfigMap whose
// entries are response headers added to every response of the Ingress's
// locations. The annotation names the ConfigMap; the model looks it up
// (model/customHeaders.ts), checks each entry with ingress-nginx's patterns and
// against the ConfigMap's global-allowed-response-headers, and denies the
// locations (503) when any entry fails, as ingress-nginx does.
import { parseObjectReference, type ObjectReference } from '../objectReference.js';
import { patternParser } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

/** One Ingress's custom response headers. */
export interface CustomHeaders {
  /** `custom-headers` as written: its namespace undefined for the Ingress's own. */
  from: ObjectReference;
  /** The ConfigMap's entries, sorted by name (model/customHeaders.ts fills them in); values are literal text. */
  headers: Array<[name: string, value: string]>;
  /** Why every request is answered 503 instead: the ConfigMap is missing, not allowed, or has an entry refused. */
  denied: string | undefined;
}

/** ingress-nginx's customheaders headerRegexp, bounded: also what global-allowed-response-headers lists. */
export const parseResponseHeaderName = patternParser(/^[A-Za-z0-9_-]{1,256}$/, 'a header name of letters, digits, "-" and "_"');

/**
 * ingress-nginx's customheaders valueRegexp: printable ASCII, spaces included.
 * The value is sent as written (a `$` is a dollar sign, as ingress-nginx's
 * escapeLiteralDollar makes it); bounded so the directive stays one nginx token.
 */
export const RESPONSE_HEADER_VALUE = /^[\x20-\x7e]{1,2048}$/;

const customHeaders: AnnotationDefinition<ObjectReference> = { name: 'custom-headers', risk: 'Medium', parse: parseObjectReference };

export const customHeadersAnnotations: AnnotationGroup<CustomHeaders | undefined> = {
  annotations: [customHeaders],
  resolve: (values) => {
    const from = values.get(customHeaders);
    return from && { from: { namespace: from.namespace, name: from.name }, headers: [], denied: undefined };
  },
};
