// nginx's stream block (docs/stream.md), from Debian's libnginx-mod-stream,
// loaded only when something needs it: TCP/UDP services
// (renderStreamServices.ts), SSL passthrough (renderSslPassthrough.ts) or a
// stream snippet. Stream endpoints are written here, not pushed: Debian 12
// has no stream Lua module, so a change of them reloads nginx.
//
// The block's own directives are those of ingress-nginx's template: the
// `log_stream` format (log-format-stream; no escape= there, whatever
// log-format-escape-json says), the access log (stream-access-log-path, else
// access-log-path, with access-log-params; off with disable-access-log or
// disable-stream-access-log), the error log, and with enable-real-ip the
// proxies (proxy-real-ip-cidr) whose PROXY header a `proxy_protocol` listener
// believes. The snippets come last: the Ingresses' stream-snippet annotations
// (oldest first, each traced to its Ingress), then the ConfigMap's.
import { posix } from 'node:path';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import type { Configuration } from '../../../model/types.js';
import { filePath, literal, raw, template } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { SETTINGS_ORIGIN } from './configOrigins.js';
import type { RenderContext } from './renderContext.js';
import { errorLogTarget } from './renderLogging.js';
import type { RenderScope } from './renderScope.js';
import { renderSslPassthroughStream } from './renderSslPassthrough.js';
import { renderStreamServices } from './renderStreamServices.js';

const STREAM_MODULE_FILE = 'ngx_stream_module.so';

export const STREAM_LOG_FORMAT = 'log_stream';

/** ingress-nginx's stream variable (lua_add_variable there); the TCP/UDP servers set it. */
const UPSTREAM_NAME_VARIABLE = '$proxy_upstream_name';

/** Whether nginx.conf has a stream block: TCP/UDP services, SSL passthrough, or a stream snippet. */
export function usesStream(configuration: Configuration): boolean {
  const stream = configuration.stream;
  const parts = stream !== undefined && (stream.services.length > 0 || stream.sslPassthrough || stream.snippets.length > 0);
  return parts || configuration.settings.streamSnippet !== undefined;
}

/** The main context's `load_module` of the stream module, before the block that needs it. */
export function renderStreamModule(main: ConfigBuilder, configuration: Configuration, context: RenderContext): void {
  if (usesStream(configuration)) main.directive('load_module', filePath(posix.join(context.modulesDir, STREAM_MODULE_FILE)));
}

/** The stream block, after the http block. */
export function renderStream(main: ConfigBuilder, scope: RenderScope): void {
  if (!usesStream(scope.configuration)) return;
  const { settings } = scope.configuration;
  main.block('stream', [], (stream) => {
    stream.from(SETTINGS_ORIGIN, () => renderStreamSettings(stream, settings, scope.context));
    renderStreamServices(stream, scope);
    renderSslPassthroughStream(stream, scope);
    renderStreamSnippets(stream, scope);
  });
}

function renderStreamSettings(stream: ConfigBuilder, settings: GlobalSettings, context: RenderContext): void {
  // A format naming $proxy_upstream_name must find it even where no TCP/UDP server sets it (their `set` then wins).
  if (settings.logFormatStream.includes('proxy_upstream_name')) {
    stream.block('map', [literal(''), raw.variable(UPSTREAM_NAME_VARIABLE)], (map) => map.entry(raw.keyword('default'), literal('')));
  }
  stream.directive('log_format', raw.keyword(STREAM_LOG_FORMAT), template(settings.logFormatStream));
  if (settings.disableAccessLog || settings.disableStreamAccessLog) stream.directive('access_log', raw.keyword('off'));
  else {
    const path = settings.streamAccessLogPath ?? settings.accessLogPath ?? context.paths.accessLog;
    const parameters = settings.accessLogParams.map((parameter) => raw.accessLogParameter(parameter));
    stream.directive('access_log', filePath(path), raw.keyword(STREAM_LOG_FORMAT), ...parameters);
  }
  stream.directive('error_log', errorLogTarget(settings, context), raw.keyword(settings.errorLogLevel));
  if (settings.enableRealIp) for (const cidr of settings.proxyRealIpCidr) stream.directive('set_real_ip_from', raw.cidr(cidr));
}

/** The Ingresses' stream-snippet annotations, each traced to its Ingress (a refusal leaves that one out), then the ConfigMap's. */
function renderStreamSnippets(stream: ConfigBuilder, scope: RenderScope): void {
  for (const { ingress, snippet } of scope.configuration.stream?.snippets ?? []) {
    stream.from(scope.origins.ingress(ingress), () => stream.verbatim(snippet));
  }
  const global = scope.configuration.settings.streamSnippet;
  if (global !== undefined) stream.from(SETTINGS_ORIGIN, () => stream.verbatim(global));
}
