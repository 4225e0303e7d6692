// ssl-ciphers and ssl-prefer-server-ciphers: a host's choice (the model's
// Server.tlsCiphers) in its server block, as ingress-nginx's template writes it.
// The server is chosen by SNI before OpenSSL picks the cipher, and with Debian
// 12's nginx 1.22 and OpenSSL 3.0 the chosen server's list and preference decide,
// also with the certificate served from Lua (test/e2e/tlsCiphers.test.ts).
// Hosts without the annotations get nothing from here: the http block's
// ConfigMap values apply.
import type { Server } from '../../../model/types.js';
import { literal } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { onOff } from './renderHttp.js';
import type { RenderScope } from './renderScope.js';

/** In the server block; each line is its choosing Ingress's (refusal containment: nginx refuses a list selecting no cipher). */
export function renderTlsCiphers(server: ConfigBuilder, host: Server, scope: RenderScope): void {
  const { ciphers, preferServerCiphers } = host.tlsCiphers ?? {};
  if (ciphers !== undefined) {
    server.from(scope.origins.ingress(ciphers.ingress), () => server.directive('ssl_ciphers', literal(ciphers.list)));
  }
  if (preferServerCiphers !== undefined) {
    server.from(scope.origins.ingress(preferServerCiphers.ingress), () =>
      server.directive('ssl_prefer_server_ciphers', onOff(preferServerCiphers.prefer)),
    );
  }
}
