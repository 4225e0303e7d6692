// The TCP and UDP services' servers and upstreams in the stream block, as
// ingress-nginx's template writes them: each service listens on the public
// addresses of the HTTP servers (renderListen.ts), with `udp` for UDP and
// `proxy_protocol` when the entry decodes PROXY, and proxies with the
// proxy-stream-* settings to an upstream of its endpoints (written here: Debian 12
// has no stream Lua, so an endpoint change reloads). `$proxy_upstream_name`
// is ingress-nginx's `tcp-<namespace>-<service>-<port>` for the stream log.
import type { StreamService } from '../../../model/stream/streamTypes.js';
import { describeValue, raw, text } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { publicAddresses } from './renderListen.js';
import type { RenderScope } from './renderScope.js';

/**
 * The upstream block's name: by protocol and port, which the model keeps
 * unique (ingress-nginx's name is not: `a-b/c` and `a/b-c` both give `tcp-a-b-c-80`).
 */
export function streamUpstreamBlockName(service: Pick<StreamService, 'protocol' | 'port'>): string {
  return `portico_${service.protocol.toLowerCase()}_${service.port}`;
}

/**
 * The model's names are made of Kubernetes names (lower-case letters, digits, "-"):
 * anything else, a `$` above all (the stream block has no `$dollar` for text() to
 * escape it with), is the model's bug, refused rather than rendered.
 */
function checkedUpstreamName(name: string): string {
  if (!/^(tcp|udp)-[a-z0-9-]{1,400}$/.test(name)) throw new Error(`not a stream upstream name: ${describeValue(name)}`);
  return name;
}

export function renderStreamServices(stream: ConfigBuilder, scope: RenderScope): void {
  const { configuration, context } = scope;
  const { settings } = configuration;
  for (const service of configuration.stream?.services ?? []) {
    const upstream = raw.upstreamName(streamUpstreamBlockName(service));
    stream.block('upstream', [upstream], (block) => {
      for (const endpoint of service.endpoints) block.directive('server', raw.hostPort(endpoint.address, endpoint.port));
    });
    const udp = service.protocol === 'UDP';
    const listenOptions = [...(udp ? [raw.keyword('udp')] : []), ...(service.proxyProtocol.decode ? [raw.keyword('proxy_protocol')] : [])];
    stream.block('server', [], (server) => {
      for (const address of publicAddresses(context, settings)) {
        server.directive('listen', raw.listen(address, service.port), ...listenOptions);
      }
      server.directive('set', raw.variable('$proxy_upstream_name'), text(checkedUpstreamName(service.upstreamName)));
      if (udp) server.directive('proxy_responses', raw.integer(settings.proxyStreamResponses));
      server.directive('proxy_timeout', raw.time(settings.proxyStreamTimeout));
      server.directive('proxy_next_upstream', raw.keyword(settings.proxyStreamNextUpstream ? 'on' : 'off'));
      server.directive('proxy_next_upstream_timeout', raw.time(settings.proxyStreamNextUpstreamTimeout));
      server.directive('proxy_next_upstream_tries', raw.integer(settings.proxyStreamNextUpstreamTries));
      server.directive('proxy_pass', upstream);
      if (service.proxyProtocol.encode) server.directive('proxy_protocol', raw.keyword('on'));
    });
  }
}
