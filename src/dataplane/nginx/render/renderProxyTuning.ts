// How nginx buffers and retries a proxied request (proxyTuningAnnotations.ts,
// nextUpstreamAnnotations.ts). The ConfigMap's buffers are written once in the
// http block, which every location inherits; a location writes them again only
// when its Ingress sets one of the annotations. The retries (which the balancer
// relies on to bound its tries) are in the http block too (renderProxyInheritance.ts):
// a proxy location writes them where its own differ, gRPC and FastCGI always.
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import {
  NEXT_UPSTREAM_CONDITIONS,
  nextUpstreamSettings,
  type NextUpstream,
  type NextUpstreamCondition,
} from '../../../model/annotations/nextUpstreamAnnotations.js';
import { proxyTuningSettings, type ProxyTuning } from '../../../model/annotations/proxyTuningAnnotations.js';
import type { LocationAnnotations } from '../../../model/types.js';
import { describeValue, raw, type Argument, type Keyword } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import type { InheritedProxyDirectives } from './renderProxyInheritance.js';

/** The http block's defaults: the ConfigMap's buffers. */
export function renderProxyTuningDefaults(http: ConfigBuilder, settings: GlobalSettings): void {
  renderBuffers(http, proxyTuningSettings(settings), 'proxy');
}

/**
 * `module` is the location's upstream module: gRPC has no request buffering
 * nor response buffers of its own to tune (nginx has no grpc_buffers), so only
 * the client body buffer and the retries apply there; FastCGI neither, and
 * its fastcgi_next_upstream has no http_502/http_504 (nginx refuses them there).
 */
export function renderLocationProxyTuning(
  body: ConfigBuilder,
  annotations: LocationAnnotations,
  settings: GlobalSettings,
  module: 'proxy' | 'grpc' | 'fastcgi',
  inherited: InheritedProxyDirectives | undefined,
): void {
  if (annotations.proxyTuning !== undefined) renderBuffers(body, annotations.proxyTuning, module);
  const retries = annotations.nextUpstream ?? nextUpstreamSettings(settings);
  // 0 is nginx's own default (no time limit): nothing to write, unless the http block sets a limit (proxy_'s only).
  const writesTimeout = retries.timeout > 0 || (module === 'proxy' && settings.proxyNextUpstreamTimeout > 0);
  for (const [name, args] of retryDirectives(retries, module)) {
    if (inherited !== undefined && module === 'proxy') inherited.write(body, name, ...args);
    else if (writesTimeout || name !== `${module}_next_upstream_timeout`) body.directive(name, ...args);
  }
}

/** `<module>_next_upstream`, `_timeout` (0 included) and `_tries`: how many endpoints a request may try, and on what. */
export function retryDirectives(
  retries: NextUpstream,
  module: 'proxy' | 'grpc' | 'fastcgi',
): Array<readonly [name: string, args: readonly Argument[]]> {
  const conditions = module === 'fastcgi' ? fastCgiConditions(retries.conditions) : retries.conditions;
  return [
    [`${module}_next_upstream`, conditions.map((condition) => oneOf(condition, NEXT_UPSTREAM_CONDITIONS))],
    [`${module}_next_upstream_timeout`, [raw.seconds(retries.timeout)]],
    [`${module}_next_upstream_tries`, [raw.integer(retries.tries)]],
  ];
}

/** proxy_http_version: the location's proxy-http-version, else the ConfigMap's. */
export function proxyHttpVersion(annotations: LocationAnnotations | undefined, settings: GlobalSettings): Argument {
  return oneOf(annotations?.proxyTuning?.httpVersion ?? settings.proxyHttpVersion, HTTP_VERSIONS);
}

const HTTP_VERSIONS = ['1.0', '1.1'] as const;
const ON_OFF = ['on', 'off'] as const;

/** The field's own closed set: Portico's keywords include words (`=`, `break`) no such directive takes. */
function oneOf(value: string, options: readonly Keyword[]): Argument {
  const option = options.find((candidate) => candidate === value);
  if (option === undefined) throw new Error(`invalid keyword for nginx: ${describeValue(value)} is not one of ${options.join(', ')}`);
  return raw.keyword(option);
}

/** The conditions fastcgi_next_upstream knows (`off` when none is left). */
function fastCgiConditions(conditions: readonly NextUpstreamCondition[]): readonly NextUpstreamCondition[] {
  const known = conditions.filter((condition) => condition !== 'http_502' && condition !== 'http_504');
  return known.length === 0 || (known.length === 1 && known[0] === 'non_idempotent') ? ['off'] : known;
}

function renderBuffers(block: ConfigBuilder, tuning: ProxyTuning, module: 'proxy' | 'grpc' | 'fastcgi'): void {
  block.directive('client_body_buffer_size', raw.size(tuning.clientBodyBufferSize));
  if (module !== 'proxy') return;
  block.directive('proxy_buffer_size', raw.size(tuning.bufferSize));
  // As ingress-nginx: the body buffers are as large as the header's.
  block.directive('proxy_buffers', raw.integer(tuning.buffersNumber), raw.size(tuning.bufferSize));
  if (tuning.busyBuffersSize !== undefined) block.directive('proxy_busy_buffers_size', raw.size(tuning.busyBuffersSize));
  block.directive('proxy_max_temp_file_size', raw.size(tuning.maxTempFileSize));
  block.directive('proxy_request_buffering', oneOf(tuning.requestBuffering, ON_OFF));
}
