// default-backend's Service (errorPageAnnotations.ts), looked up on every model
// run: its first port becomes a backend (endpoints from its EndpointSlices,
// checked like every backend's), so a Service edit reaches nginx without an
// Ingress edit (the store's Service → Ingress index names default-backend).
// A missing Service, or one without ports, is ignored with a Warning, as
// ingress-nginx ignores the annotation: the error pages then go to
// --default-backend-service, and a path without endpoints answers 503.
import type { ReferenceResolver } from './referencedObjects.js';
import type { LocationAnnotations } from './types.js';

/** The reason of the Warning Event when default-backend names no usable Service. */
export const DEFAULT_BACKEND_UNUSABLE = 'DefaultBackendUnusable';

export const resolveDefaultBackendService: ReferenceResolver = (annotations, context) => {
  const errorPages = annotations.errorPages;
  if (errorPages?.defaultBackendService === undefined) return annotations;
  const { namespace } = context.ingress;
  const key = `${namespace}/${errorPages.defaultBackendService}`;
  const port = context.lookup.service(key)?.spec?.ports?.[0]?.port;
  if (port === undefined) {
    const why = context.lookup.service(key) === undefined ? 'not found' : 'has no ports';
    context.problems.push({
      ingress: context.ingress,
      severity: 'warning',
      reason: DEFAULT_BACKEND_UNUSABLE,
      message: `default-backend: Service ${key} ${why}; ignored (error pages go to the controller's default backend, paths without endpoints answer 503)`,
    });
    return annotations;
  }
  const defaultBackend = context.backends.add({ namespace, name: errorPages.defaultBackendService, port });
  return { ...annotations, errorPages: { ...errorPages, defaultBackend } } satisfies LocationAnnotations;
};
