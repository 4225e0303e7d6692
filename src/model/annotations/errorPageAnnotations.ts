// custom-http-errors, disable-proxy-intercept-errors and default-backend
// (ingress-nginx's customhttperrors, disableproxyintercepterrors and
// defaultbackend parsers): which upstream statuses nginx replaces with an
// answer of a default backend, and the Ingress's own default backend, which
// also answers for a Service without endpoints. Without the annotation, the
// ConfigMap's custom-http-errors gives the codes. The Service is looked up by
// the model on every run (defaultBackendService.ts); rendering is
// src/dataplane/nginx/render/renderErrorPages.ts.
import { parseBoolean, patternParser, quoteValue, type ValueParser } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

/** One Ingress's error pages and default backend; unset without codes (its own or the ConfigMap's) and without default-backend. */
export interface ErrorPages {
  /** `custom-http-errors`: statuses from 400 to 599, sorted, each once; empty: none. */
  codes: number[];
  /** false with `disable-proxy-intercept-errors: "true"`: the codes apply to nginx's own errors only, upstream answers pass. */
  interceptUpstream: boolean;
  /**
   * The codes are the ConfigMap's custom-http-errors (the annotation is unset): as ingress-nginx's http-level
   * error_page, they go to --default-backend-service whatever default-backend says, and are always intercepted.
   */
  global: boolean;
  /** `default-backend`: a Service of the Ingress's namespace; its first port is used, as in ingress-nginx. */
  defaultBackendService: string | undefined;
  /** That Service's backend, set by the model when the Service exists and has a port (defaultBackendService.ts). */
  defaultBackend: string | undefined;
}

const CODE = /^[45][0-9]{2}$/;

/** A comma-separated list of statuses 400-599, spaces around items allowed; `","` is the empty list, as ingress-nginx's pattern. */
export const parseErrorCodes: ValueParser<number[]> = (text) => {
  const codes = new Set<number>();
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    if (!CODE.test(item))
      return { ok: false, expected: `a comma-separated list of HTTP statuses from 400 to 599; ${quoteValue(item)} is not one` };
    codes.add(Number(item));
  }
  return { ok: true, value: [...codes].sort((a, b) => a - b) };
};

/** A DNS-1035 label: the name of a Service (ingress-nginx's ValidateServiceName). */
export const parseServiceName = patternParser(
  /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
  'the name of a Service in the Ingress namespace (a lower-case DNS-1035 label)',
);

const customHttpErrors: AnnotationDefinition<number[]> = { name: 'custom-http-errors', risk: 'Low', parse: parseErrorCodes };
const disableProxyInterceptErrors: AnnotationDefinition<boolean> = {
  name: 'disable-proxy-intercept-errors',
  risk: 'Low',
  parse: parseBoolean,
};
const defaultBackend: AnnotationDefinition<string> = { name: 'default-backend', risk: 'Low', parse: parseServiceName };

export const errorPageAnnotations: AnnotationGroup<ErrorPages | undefined> = {
  annotations: [customHttpErrors, disableProxyInterceptErrors, defaultBackend],
  resolve: (values, settings) => {
    const own = values.get(customHttpErrors) ?? [];
    const global = own.length === 0 && settings.customHttpErrors.length > 0;
    const codes = global ? settings.customHttpErrors : own;
    const service = values.get(defaultBackend);
    if (codes.length === 0 && service === undefined) return undefined;
    return {
      codes,
      interceptUpstream: global || values.get(disableProxyInterceptErrors) !== true,
      global,
      defaultBackendService: service,
      defaultBackend: undefined,
    };
  },
};
