// proxy-ssl-* in a location (ingress-nginx writes them at the location level too):
// the `<module>_ssl_*` directives of the module that talks to the backend
// (proxy for HTTPS, grpc for GRPCS; plain HTTP and gRPC have no TLS to set),
// or `return 503` when the model could not use the Secret. Locations without
// proxy-ssl-secret get nothing.
//
// nginx keeps idle upstream connections per upstream block and hands them to
// any location proxying to the same address, TLS settings notwithstanding: a
// location with proxy-ssl-verify would reuse a connection nobody verified, one
// without a client certificate would borrow another's. So each distinct set of
// TLS settings gets an upstream block of its own (the same balancer), and
// connections are reused only between locations that would have made them alike.
import { createHash } from 'node:crypto';
import type { BackendTls, Configuration } from '../../../model/types.js';
import { filePath, literal, raw, template } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { secretFilePath, type RenderContext } from './renderContext.js';
import { onOff, tlsProtocol } from './renderHttp.js';
import { BALANCER_UPSTREAM } from './renderLua.js';

type Scheme = 'http' | 'https' | 'grpc' | 'grpcs';

/** The upstream a location with these settings proxies to; undefined: the shared one (no TLS settings of its own). */
export function backendTlsUpstream(tls: BackendTls | undefined, scheme: Scheme): string | undefined {
  if (tls?.files === undefined || (scheme !== 'https' && scheme !== 'grpcs')) return undefined;
  // What shapes the connection; the Secret's content is in the file ids.
  const settings = [scheme, tls.files, tls.verify, tls.verifyDepth, tls.ciphers, tls.protocols, tls.name ?? null, tls.serverName];
  const digest = createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16);
  return `${BALANCER_UPSTREAM}_tls_${digest}`;
}

/** Every upstream backendTlsUpstream names in the configuration, sorted. */
export function backendTlsUpstreams(configuration: Configuration): string[] {
  const names = new Set<string>();
  for (const server of configuration.servers) {
    for (const location of server.locations) {
      const protocol = location.annotations.backendProtocol;
      const scheme: Scheme = protocol === 'HTTPS' ? 'https' : protocol === 'GRPCS' ? 'grpcs' : 'http';
      const name = location.backend === undefined ? undefined : backendTlsUpstream(location.annotations.backendTls, scheme);
      if (name !== undefined) names.add(name);
    }
  }
  return [...names].sort();
}

export function renderBackendTls(
  body: ConfigBuilder,
  tls: BackendTls | undefined,
  module: 'proxy' | 'grpc',
  scheme: Scheme,
  context: RenderContext,
): void {
  if (tls === undefined) return;
  // A rewrite-phase return: it answers before the balancer hooks run.
  if (tls.files === undefined) {
    body.directive('return', raw.integer(503));
    return;
  }
  if (scheme !== 'https' && scheme !== 'grpcs') return;
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
