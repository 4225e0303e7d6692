// Annotations that name a Secret or ConfigMap (auth-secret, auth-tls-secret,
// proxy-ssl-secret, auth-proxy-set-headers...) are parsed from the Ingress
// alone; what they name is looked up here, once per Ingress per model run, so
// that an edit to the object reaches nginx without an edit to the Ingress.
// Each such group adds one resolver: it turns its reference into the material
// (or into a refusal of that location, with a problem on the Ingress: a
// missing or unreadable object never leaves a location open).
import type { BackendTable } from './backendTable.js';
import { resolveBackendTls } from './backendTlsSecret.js';
import { resolveBasicAuthSecret } from './basicAuthSecret.js';
import type { ModelInput } from './buildConfiguration.js';
import { resolveClientCertificateSecret } from './clientCertificateSecret.js';
import { resolveDefaultBackendService } from './defaultBackendService.js';
import { resolveCustomHeaders } from './customHeaders.js';
import { resolveAuthProxySetHeaders } from './externalAuthHeaders.js';
import { resolveFastCgiParams } from './fastCgiParams.js';
import { resolveMirrorTarget } from './mirrorTargetGuard.js';
import type { SecretFileSet } from './secretFiles.js';
import type { EndpointGuard } from './selfAddress.js';
import type { GlobalSettings } from './settings/globalSettings.js';
import type { IngressProblem, IngressRef, LocationAnnotations } from './types.js';

export interface ReferenceContext {
  ingress: IngressRef;
  lookup: ModelInput['lookup'];
  settings: GlobalSettings;
  /** Where material nginx must read from a file goes. */
  secretFiles: SecretFileSet;
  problems: IngressProblem[];
  /** Where a Service an annotation names becomes a backend (default-backend). */
  backends: BackendTable;
  /** Portico's own addresses and ports, which no annotation may send requests to. */
  endpointGuard: EndpointGuard;
}

/** A resolver of one annotation group: its part of `annotations` with what it names looked up. */
export type ReferenceResolver = (annotations: LocationAnnotations, context: ReferenceContext) => LocationAnnotations;

/** One per annotation group that names another object; each sees the previous one's result. */
const RESOLVERS: readonly ReferenceResolver[] = [
  resolveBasicAuthSecret,
  resolveClientCertificateSecret,
  resolveBackendTls,
  resolveAuthProxySetHeaders,
  resolveDefaultBackendService,
  resolveCustomHeaders,
  resolveFastCgiParams,
  resolveMirrorTarget,
];

/** The context of one Ingress's resolution in a model run over `input`. */
export function referenceContext(
  input: ModelInput,
  ingress: IngressRef,
  parts: Pick<ReferenceContext, 'secretFiles' | 'problems' | 'backends'>,
): ReferenceContext {
  return { ingress, lookup: input.lookup, settings: input.settings, endpointGuard: input.endpoints.guard, ...parts };
}

export function resolveReferencedObjects(annotations: LocationAnnotations, context: ReferenceContext): LocationAnnotations {
  return RESOLVERS.reduce((resolved, resolver) => resolver(resolved, context), annotations);
}
