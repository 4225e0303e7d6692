// auth-tls-*: a host's client-certificate verification (the model's
// Server.clientCertificates) in its server block, and the ssl-client-*
// headers its locations send upstream, as ingress-nginx's template does.
// nginx picks the server block by SNI before the handshake asks for a client
// certificate, so each host verifies against its own CAs even though the
// server certificate comes from Lua. The CA bundle and CRL are SecretFiles:
// literal paths the master reads at load. Hosts without the annotations get
// nothing from here.
import type { Server } from '../../../model/types.js';
import { filePath, ifNotMatches, raw, text } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { matchLimited } from './regex.js';
import { secretFilePath } from './renderContext.js';
import type { RenderScope } from './renderScope.js';

/** nginx's codes for a certificate that failed verification (495) and for none where one is required (496). */
const CERTIFICATE_ERROR = 495;
const NO_CERTIFICATE = 496;

/** In the server block, after the certificate hook; the lines are the choosing Ingress's (refusal containment). */
export function renderClientCertificateVerification(server: ConfigBuilder, host: Server, scope: RenderScope): void {
  const wanted = host.clientCertificates;
  if (wanted === undefined) return;
  server.from(scope.origins.ingress(wanted.ingress), () => {
    if ('refused' in wanted) {
      // An unusable Secret: every request of the host, at the server's rewrite phase, before any location.
      server.directive('return', raw.integer(503));
      return;
    }
    const { verify } = wanted;
    const file = (id: string) => filePath(secretFilePath(scope.context, id));
    server.directive('ssl_client_certificate', file(wanted.caFile));
    server.directive('ssl_verify_client', raw.keyword(verify.verifyClient));
    server.directive('ssl_verify_depth', raw.integer(verify.verifyDepth));
    if (wanted.crlFile !== undefined) server.directive('ssl_crl', file(wanted.crlFile));
    if (verify.errorPage !== undefined) {
      server.directive('error_page', raw.integer(CERTIFICATE_ERROR), raw.integer(NO_CERTIFICATE), raw.keyword('='), text(verify.errorPage));
    }
    if (verify.matchCn !== undefined) {
      server.block('if', ifNotMatches('$ssl_client_s_dn', matchLimited(verify.matchCn)), (branch) => {
        branch.directive('return', raw.integer(403), text('client certificate unauthorized'));
      });
    }
  });
}

/** Whether the host's proxying locations send the client certificate headers below. */
export function passesClientCertificateHeaders(host: Server): boolean {
  const wanted = host.clientCertificates;
  return wanted !== undefined && !('refused' in wanted);
}

/** In every proxying location of the host: what nginx learnt of the client certificate. */
export function renderClientCertificateHeaders(location: ConfigBuilder, host: Server, module: 'proxy' | 'grpc'): void {
  const wanted = host.clientCertificates;
  if (wanted === undefined || 'refused' in wanted) return;
  const header = (name: string, variable: string) =>
    location.directive(`${module}_set_header`, raw.headerName(name), raw.variable(variable));
  if (wanted.verify.passCertificateToUpstream) header('ssl-client-cert', '$ssl_client_escaped_cert');
  header('ssl-client-verify', '$ssl_client_verify');
  header('ssl-client-subject-dn', '$ssl_client_s_dn');
  header('ssl-client-issuer-dn', '$ssl_client_i_dn');
}
