// backend-protocol: how nginx talks to the Service's endpoints.
import type { BackendProtocol, LocationAnnotations } from '../types.js';
import { optionParser } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

const BACKEND_PROTOCOLS: readonly BackendProtocol[] = ['HTTP', 'HTTPS', 'GRPC', 'GRPCS', 'FCGI'];
const parseProtocol = optionParser(BACKEND_PROTOCOLS, true);

export const backendProtocol: AnnotationDefinition<BackendProtocol> = {
  name: 'backend-protocol',
  risk: 'Low',
  // Case-insensitive as in ingress-nginx. Its AUTO_HTTP is refused rather
  // than ignored: falling back to HTTP would talk the wrong protocol.
  parse: (text) => {
    const parsed = parseProtocol(text);
    return parsed.ok ? parsed : { ok: false, expected: `${parsed.expected} (AUTO_HTTP is not supported yet)` };
  },
};

export const backendProtocolAnnotations: AnnotationGroup<LocationAnnotations['backendProtocol']> = {
  annotations: [backendProtocol],
  resolve: (values) => values.get(backendProtocol) ?? 'HTTP',
};
