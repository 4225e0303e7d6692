// What nginx's stream block serves (docs/stream.md): the TCP and UDP services
// of the --tcp-services-configmap and --udp-services-configmap ConfigMaps, and
// the hosts of ssl-passthrough Ingresses, routed by SNI without terminating
// their TLS. Unlike HTTP backends, their endpoints are written into nginx.conf
// (Debian 12 has no stream Lua module): an endpoint change there reloads.
import type { Endpoint, IngressRef } from '../types.js';

export type StreamProtocol = 'TCP' | 'UDP';

export interface StreamService {
  /** The external port nginx listens on (the ConfigMap key). */
  port: number;
  protocol: StreamProtocol;
  /** ingress-nginx's `tcp-<namespace>-<service>-<port>` (`udp-` for UDP): $proxy_upstream_name in the stream log. */
  upstreamName: string;
  /** The Service and its port as the ConfigMap names them (a number or a port name). */
  service: { namespace: string; name: string; port: string };
  /**
   * ingress-nginx's `namespace/service:port:PROXY:PROXY` (TCP only): the first
   * `PROXY` decodes (the listener expects a PROXY header from the client), the
   * second encodes (nginx sends one to the backend).
   */
  proxyProtocol: { decode: boolean; encode: boolean };
  /** Ready endpoints, sorted; never empty (an entry without any is left out, with a problem on its ConfigMap). */
  endpoints: Endpoint[];
}

/** A host of an Ingress with `ssl-passthrough: "true"` (only with --enable-ssl-passthrough). */
export interface PassthroughHost {
  hostname: string;
  /** The stream upstream's name. */
  upstreamName: string;
  /** The endpoints of the backend of the host's `/` path, sorted; empty: connections for the host are closed. */
  endpoints: Endpoint[];
  /** The Ingress whose `/` path chose the backend. */
  ingress: IngressRef;
}

/** One Ingress's `stream-snippet`, with that Ingress: a snippet nginx refuses is traced to it. */
export interface IngressStreamSnippet {
  ingress: IngressRef;
  snippet: string;
}

export interface StreamConfiguration {
  /** By protocol, then port. */
  services: StreamService[];
  /** --enable-ssl-passthrough: nginx's stream block owns the HTTPS port and the TLS servers move behind it. */
  sslPassthrough: boolean;
  /** By hostname. */
  passthroughHosts: PassthroughHost[];
  /** `stream-snippet` annotations of served Ingresses, oldest Ingress first (only with allow-snippet-annotations; streamSnippets.ts). */
  snippets: IngressStreamSnippet[];
}

export const NO_STREAM: StreamConfiguration = { services: [], sslPassthrough: false, passthroughHosts: [], snippets: [] };
