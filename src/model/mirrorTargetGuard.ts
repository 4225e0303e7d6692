// The self-endpoint guard for mirror-target: a copy of every request sent to
// Portico itself would loop (each copy is mirrored again), and one sent to a
// loopback address reaches whatever listens on this machine. Such a target is
// left out with a Warning on the Ingress; its locations are served without
// mirror (the copy's answer never reaches the client anyway).
import { isLoopbackOrUnspecified, parseAddress, selfEndpointReason } from './selfAddress.js';
import type { ReferenceResolver } from './referencedObjects.js';

/** The reason of the Warning Event when a mirror-target is refused. */
export const MIRROR_TARGET_REFUSED = 'MirrorTargetRefused';

export const resolveMirrorTarget: ReferenceResolver = (annotations, context) => {
  const { mirror } = annotations;
  if (mirror === undefined) return annotations;
  const address = mirror.target.host.replace(/^\[(.*)\]$/, '$1');
  const bytes = parseAddress(address);
  const reason =
    bytes === undefined
      ? 'is not an IP address'
      : isLoopbackOrUnspecified(bytes)
        ? 'is a loopback or unspecified address: this machine, never a mirror'
        : selfEndpointReason({ address, port: mirror.target.port }, context.endpointGuard);
  if (reason === undefined) return annotations;
  context.problems.push({
    ingress: context.ingress,
    severity: 'warning',
    reason: MIRROR_TARGET_REFUSED,
    message: `mirror-target ${mirror.target.host}:${mirror.target.port} ${reason}; the Ingress is served without mirror`,
  });
  const withoutMirror = { ...annotations };
  delete withoutMirror.mirror;
  return withoutMirror;
};
