// proxy-body-size, the three proxy timeouts and proxy-buffering (part of
// ingress-nginx's "proxy" group; next-upstream, cookies and redirects are not
// implemented yet).
import { optionParser, parseNginxSize, parsePositiveSeconds } from '../settings/valueSyntax.js';
import type { LocationAnnotations } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

const proxyBodySize: AnnotationDefinition<string> = {
  name: 'proxy-body-size',
  risk: 'Medium',
  parse: parseNginxSize,
};

// ingress-nginx takes any integer (strconv.Atoi); negative values would break nginx and 0 fails every
// request at once (504), so both are refused, as values beyond what an nginx timer holds.
const proxyConnectTimeout: AnnotationDefinition<number> = {
  name: 'proxy-connect-timeout',
  risk: 'Low',
  parse: parsePositiveSeconds,
};

const proxyReadTimeout: AnnotationDefinition<number> = { name: 'proxy-read-timeout', risk: 'Low', parse: parsePositiveSeconds };

const proxySendTimeout: AnnotationDefinition<number> = { name: 'proxy-send-timeout', risk: 'Low', parse: parsePositiveSeconds };

const proxyBuffering: AnnotationDefinition<'on' | 'off'> = { name: 'proxy-buffering', risk: 'Low', parse: optionParser(['on', 'off']) };

export const proxyAnnotations: AnnotationGroup<LocationAnnotations['proxy']> = {
  annotations: [proxyBodySize, proxyConnectTimeout, proxyReadTimeout, proxySendTimeout, proxyBuffering],
  resolve: (values, settings) => ({
    bodySize: values.get(proxyBodySize) ?? settings.proxyBodySize,
    connectTimeout: values.get(proxyConnectTimeout) ?? settings.proxyConnectTimeout,
    readTimeout: values.get(proxyReadTimeout) ?? settings.proxyReadTimeout,
    sendTimeout: values.get(proxySendTimeout) ?? settings.proxySendTimeout,
    buffering: values.get(proxyBuffering) ?? settings.proxyBuffering,
  }),
};
