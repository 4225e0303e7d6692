// Client certificates are verified during the TLS handshake, so in nginx they
// are a setting of the server block (the host), not of a location. As
// ingress-nginx decides it: the oldest Ingress of the host whose auth-tls-secret
// is usable sets the host's verification, for every location of the host; an
// Ingress of the host naming an unusable Secret makes the whole host refuse
// requests instead (ingress-nginx's server-wide AuthTLSError), so no location
// is ever served without the verification one of its Ingresses asked for.
import type { DraftLocation } from './locations.js';
import type { ClientCertificateAnnotations, HostClientCertificates, Server } from './types.js';

/** `{ clientCertificates }` for a server with these draft locations (in Ingress age order), or `{}`. */
export function hostClientCertificates(locations: readonly DraftLocation[]): Pick<Server, 'clientCertificates'> {
  let chosen: HostClientCertificates | undefined;
  for (const location of locations) {
    const { ingress } = location;
    const wanted = location.generated ? undefined : location.annotations.clientCertificates;
    const material = wanted?.material;
    if (ingress === undefined || wanted === undefined || material === undefined) continue;
    if ('refused' in material) return { clientCertificates: { ingress, refused: material.refused } };
    chosen ??= { ingress, verify: withoutMaterial(wanted), caFile: material.caFile, crlFile: material.crlFile };
  }
  return chosen === undefined ? {} : { clientCertificates: chosen };
}

/** The annotations as the host applies them: the material is the host's own fields. */
function withoutMaterial(annotations: ClientCertificateAnnotations): ClientCertificateAnnotations {
  const verify = { ...annotations };
  delete verify.material;
  return verify;
}
