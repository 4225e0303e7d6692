// proxy-ssl-* in a location (ingress-nginx writes them at the location level too):
// the `<module>_ssl_*` directives of the module that talks to the backend
// (proxy for HTTPS, grpc for GRPCS; plain HTTP and gRPC have no TLS to set),
// or `return 503` when the model could not use the Secret. Locations without
// proxy-ssl-secret get nothing.
import type { BackendTls } from '../../../model/types.js';
import { filePath, literal, raw, template } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { secretFilePath, type RenderContext } from './renderContext.js';
import { onOff, tlsProtocol } from './renderHttp.js';

export interface BackendTlsTarget {
  readonly module: 'proxy' | 'grpc';
  /** Whether the module speaks TLS to the backend (https, grpcs). */
  readonly tls: boolean;
}

export function renderBackendTls(body: ConfigBuilder, tls: BackendTls | undefined, target: BackendTlsTarget, context: RenderContext): void {
  if (tls === undefined) return;
  // A rewrite-phase return: it answers before the balancer hooks run.
  if (tls.files === undefined) {
    body.directive('return', raw.integer(503));
    return;
  }
  if (!target.tls) return;
  const { module } = target;
  const { trustedCertificate, clientCertificate } = tls.files;
  // nginx refuses proxy_ssl_verify on without a trusted certificate; the model denies that case above.
  if (trustedCertificate !== undefined) {
    body.directive(`${module}_ssl_trusted_certificate`, filePath(secretFilePath(context, trustedCertificate)));
    body.directive(`${module}_ssl_verify`, onOff(tls.verify));
    body.directive(`${module}_ssl_verify_depth`, raw.integer(tls.verifyDepth));
  }
  body.directive(`${module}_ssl_ciphers`, literal(tls.ciphers));
  body.directive(`${module}_ssl_protocols`, ...tls.protocols.map((protocol) => raw.keyword(tlsProtocol(protocol))));
  // The model allows only well-formed references to variables every location has (backendTlsAnnotations.ts).
  if (tls.name !== undefined) body.directive(`${module}_ssl_name`, template(tls.name));
  body.directive(`${module}_ssl_server_name`, onOff(tls.serverName));
  if (clientCertificate !== undefined) {
    const file = filePath(secretFilePath(context, clientCertificate));
    body.directive(`${module}_ssl_certificate`, file);
    body.directive(`${module}_ssl_certificate_key`, file);
  }
}
