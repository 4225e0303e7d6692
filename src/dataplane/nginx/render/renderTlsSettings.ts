// The TLS keys of the ConfigMap (settings/keys/tlsSettings.ts) as ingress-nginx's
// template writes them: in the http block, so every server inherits them, and
// ssl_reject_handshake in the catch-all server only. With the certificate
// served from Lua (ssl_certificate_by_lua) they still apply: they are settings
// of the SSL context of the server chosen by SNI, which Lua does not replace
// (test/e2e/tlsSettings.test.ts resumes sessions, offers curves and DHE
// ciphers against Lua-served certificates).
import type { Configuration } from '../../../model/types.js';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { filePath, literal, raw } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { secretFilePath, type RenderContext } from './renderContext.js';
import { onOff } from './renderHttp.js';

/** The http block's TLS defaults beyond protocols and ciphers. */
export function renderTlsSettings(http: ConfigBuilder, configuration: Configuration, context: RenderContext): void {
  const { settings, tlsFiles } = configuration;
  http.directive('ssl_early_data', onOff(settings.sslEarlyData));
  // Off: nginx's `none` (sessions are not stored, so not resumed from a cache).
  if (settings.sslSessionCache) {
    http.directive('ssl_session_cache', literal(`shared:SSL:${raw.size(settings.sslSessionCacheSize).token}`));
    http.directive('ssl_session_timeout', raw.time(settings.sslSessionTimeout));
  }
  http.directive('ssl_session_tickets', onOff(settings.sslSessionTickets));
  // Without it, each reload makes a new random key, and tickets issued before it no longer resume.
  if (tlsFiles?.sessionTicketKey !== undefined) {
    http.directive('ssl_session_ticket_key', filePath(secretFilePath(context, tlsFiles.sessionTicketKey)));
  }
  http.directive('ssl_buffer_size', raw.size(settings.sslBufferSize));
  // Without parameters OpenSSL 3 negotiates no DHE cipher.
  if (tlsFiles?.dhParam !== undefined) http.directive('ssl_dhparam', filePath(secretFilePath(context, tlsFiles.dhParam)));
  http.directive('ssl_ecdh_curve', literal(settings.sslEcdhCurve));
}

/** In the catch-all server: a handshake for a name no server has (or without SNI) is refused, instead of answered with the default certificate. */
export function renderRejectHandshake(server: ConfigBuilder, settings: Pick<GlobalSettings, 'sslRejectHandshake'>): void {
  server.directive('ssl_reject_handshake', onOff(settings.sslRejectHandshake));
}
