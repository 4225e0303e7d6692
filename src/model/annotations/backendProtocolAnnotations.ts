// backend-protocol: how nginx talks to the Service's endpoints.
import type { BackendProtocol, LocationAnnotations } from '../types.js';
import { optionParser } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

const BACKEND_PROTOCOLS: readonly BackendProtocol[] = ['HTTP', 'HTTPS', 'GRPC', 'GRPCS', 'FCGI', 'AUTO_HTTP'];
const parseProtocol = optionParser(BACKEND_PROTOCOLS, true);

export const backendProtocol: AnnotationDefinition<BackendProtocol> = {
  name: 'backend-protocol',
  risk: 'Low',
  // Case-insensitive as in ingress-nginx (v1.15.1 still reads AUTO_HTTP).
  parse: parseProtocol,
};

export const backendProtocolAnnotations: AnnotationGroup<LocationAnnotations['backendProtocol']> = {
  annotations: [backendProtocol],
  resolve: (values) => values.get(backendProtocol) ?? 'HTTP',
};
