// One `upstream` block per Backend that has endpoints; a Backend without any
// gets no block, and its locations answer 503 (renderLocation.ts).
import type { Backend } from '../../../model/types.js';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { raw } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';

export function hasUpstream(backend: Backend): boolean {
  return backend.endpoints.length > 0;
}

export function renderUpstreams(http: ConfigBuilder, backends: readonly Backend[], settings: GlobalSettings): void {
  for (const backend of backends.filter(hasUpstream)) {
    http.block('upstream', [raw.upstreamName(backend.name)], (upstream) => {
      for (const endpoint of backend.endpoints) {
        // Kubernetes readiness decides which endpoints serve; nginx must not take them out on its own.
        upstream.directive('server', raw.endpoint(endpoint.address, endpoint.port), raw.keyword('max_fails=0'));
      }
      if (settings.upstreamKeepaliveConnections > 0) {
        upstream.directive('keepalive', raw.integer(settings.upstreamKeepaliveConnections));
        upstream.directive('keepalive_time', raw.time(settings.upstreamKeepaliveTime));
        upstream.directive('keepalive_timeout', raw.seconds(settings.upstreamKeepaliveTimeout));
        upstream.directive('keepalive_requests', raw.integer(settings.upstreamKeepaliveRequests));
      }
    });
  }
}
