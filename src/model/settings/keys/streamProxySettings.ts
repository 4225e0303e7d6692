// proxy-stream-*: how nginx's stream servers of the TCP and UDP services
// (--tcp-services-configmap, --udp-services-configmap) proxy, as ingress-nginx's
// template writes them into every such server (renderStreamServices.ts). The
// times are nginx times of millisecond directives and the counts ints, within
// what nginx 1.22 accepts (nginxLimits.ts; renderStreamServices.test.ts runs nginx -t at the bounds).
import type { SpecTable } from '../settingSpec.js';
import { parseBoolean, parseNginxTime, parseNonNegativeInteger } from '../valueSyntax.js';

export interface StreamProxySettings {
  /** proxy-stream-timeout: proxy_timeout, the idle time between two reads or writes before the connection is closed. */
  proxyStreamTimeout: string;
  /** proxy-stream-next-upstream: proxy_next_upstream, another endpoint when one cannot be connected to. */
  proxyStreamNextUpstream: boolean;
  /** proxy-stream-next-upstream-timeout: proxy_next_upstream_timeout (0: no limit). */
  proxyStreamNextUpstreamTimeout: string;
  /** proxy-stream-next-upstream-tries: proxy_next_upstream_tries (0: no limit). */
  proxyStreamNextUpstreamTries: number;
  /** proxy-stream-responses: proxy_responses of UDP services, the datagrams expected back for one sent (0: none, the session ends at proxy_timeout). */
  proxyStreamResponses: number;
}

export const STREAM_PROXY_DEFAULTS: StreamProxySettings = {
  proxyStreamTimeout: '600s',
  proxyStreamNextUpstream: true,
  proxyStreamNextUpstreamTimeout: '600s',
  proxyStreamNextUpstreamTries: 3,
  proxyStreamResponses: 1,
};

export const STREAM_PROXY_SPECS: SpecTable<StreamProxySettings> = {
  proxyStreamTimeout: { key: 'proxy-stream-timeout', parse: parseNginxTime },
  proxyStreamNextUpstream: { key: 'proxy-stream-next-upstream', parse: parseBoolean },
  proxyStreamNextUpstreamTimeout: { key: 'proxy-stream-next-upstream-timeout', parse: parseNginxTime },
  proxyStreamNextUpstreamTries: { key: 'proxy-stream-next-upstream-tries', parse: parseNonNegativeInteger },
  proxyStreamResponses: { key: 'proxy-stream-responses', parse: parseNonNegativeInteger },
};
