// Which server blocks get an OpenSSL context of their own. nginx builds one
// for every server with an ssl_certificate (about 2 ms and 0.5 MiB each at
// every load, with OpenSSL 3), and ingress-nginx gives one to every server.
// nginx needs it only in the default server of a TLS listener (it refuses the
// listener otherwise) and where a server sets TLS directives of its own: a
// server without one keeps the default server's context for the handshakes SNI
// selects it in. The certificate then cannot come from ssl_certificate_by_lua,
// which runs in the selected server and has no hook there, so the default
// server sets it from the ClientHello (lua/portico/certificate.lua); a server
// with its own context swaps that context in, and its own hook sets the
// certificate again.
import type { Server } from '../../../model/types.js';
import { filePath } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { renderCertificateHook, renderClientHelloCertificateHook } from './renderLua.js';
import type { RenderScope } from './renderScope.js';

/** A server's TLS context: `default` for the listeners' default server, `own` where it sets TLS directives, else none. */
export type TlsContext = 'default' | 'own' | 'none';

export function tlsContextOf(server: Server, scope: RenderScope, isDefault: boolean): TlsContext {
  if (isDefault) return 'default';
  return setsTlsDirectives(server, scope) ? 'own' : 'none';
}

/** Server-level TLS directives: per-host ciphers, client-certificate verification, or a snippet that may hold any. */
function setsTlsDirectives(server: Server, scope: RenderScope): boolean {
  const clientCertificates = server.clientCertificates;
  return (
    server.tlsCiphers !== undefined ||
    (clientCertificates !== undefined && !('refused' in clientCertificates)) ||
    server.serverSnippet !== undefined ||
    scope.configuration.settings.serverSnippet !== undefined
  );
}

/** The static (fake) certificate and the Lua hook that replaces it, for a server with a context. */
export function renderTlsContext(block: ConfigBuilder, context: TlsContext, scope: RenderScope): void {
  if (context === 'none') return;
  block.directive('ssl_certificate', filePath(scope.context.paths.fakeCertificate));
  block.directive('ssl_certificate_key', filePath(scope.context.paths.fakeCertificate));
  if (context === 'default') renderClientHelloCertificateHook(block);
  else renderCertificateHook(block);
}
