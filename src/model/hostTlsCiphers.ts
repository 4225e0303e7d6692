// ssl_ciphers and ssl_prefer_server_ciphers are settings of the TLS handshake,
// so of the server block (the host), not of a location. As ingress-nginx
// decides each of them: the oldest Ingress of the host that sets it (its
// createServers keeps the first value and skips the later ones).
import type { HostTlsCiphers } from './annotations/tlsCipherAnnotations.js';
import type { DraftLocation } from './locations.js';
import type { Server } from './types.js';

/** `{ tlsCiphers }` for a server with these draft locations (in Ingress age order), or `{}`. */
export function hostTlsCiphers(locations: readonly DraftLocation[]): Pick<Server, 'tlsCiphers'> {
  const chosen: HostTlsCiphers = {};
  for (const { ingress, generated, annotations } of locations) {
    const wanted = generated ? undefined : annotations.tlsCiphers;
    if (ingress === undefined || wanted === undefined) continue;
    if (chosen.ciphers === undefined && wanted.ciphers !== undefined) chosen.ciphers = { list: wanted.ciphers.list, ingress };
    if (chosen.preferServerCiphers === undefined && wanted.preferServerCiphers !== undefined) {
      chosen.preferServerCiphers = { prefer: wanted.preferServerCiphers, ingress };
    }
  }
  return chosen.ciphers === undefined && chosen.preferServerCiphers === undefined ? {} : { tlsCiphers: chosen };
}
