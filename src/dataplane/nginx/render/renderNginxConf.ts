// The whole nginx.conf for a desired Configuration: a pure function whose
// every byte is written by the typed builder (configBuilder.ts), so no string
// from a Kubernetes object reaches the file except as one escaped argument.
// Structure only: endpoints and certificates are live state, pushed to the
// Lua modules (renderLua.ts), so changing them never changes this text.
import type { Configuration } from '../../../model/types.js';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { literal, raw, type Argument } from './arguments.js';
import { ConfigBuilder, type ConfigNode } from './configBuilder.js';
import { SETTINGS_ORIGIN, type OriginTable, type TracedConfig } from './configOrigins.js';
import type { RenderContext } from './renderContext.js';
import { renderCorsMaps } from './renderCors.js';
import { renderExternalAuthHttp } from './renderExternalAuth.js';
import { renderGlobalAccessHttp } from './renderGlobalAccess.js';
import { renderGeoip2Http, renderGeoip2Module } from './renderGeoip2.js';
import { renderHttpSnippet, renderMainSnippet } from './renderGlobalSnippets.js';
import { renderHeadersMoreModule } from './renderHeaders.js';
import { renderHeaderSettings } from './renderHeaderSettings.js';
import { onOff, renderHttpSettings } from './renderHttp.js';
import { backendTlsUpstreams } from './renderBackendTls.js';
import { renderDebugConnections, renderWorkerLimits } from './renderMainContext.js';
import { renderBalancerUpstream, renderLuaModules, renderLuaSettings, renderNoEndpointsServer } from './renderLua.js';
import { errorLogTarget } from './renderLogging.js';
import { renderRateLimitZones } from './renderRateLimits.js';
import { renderModSecurityHttp, renderModSecurityModule } from './renderModSecurity.js';
import { createRenderScope, type RenderScope } from './renderScope.js';
import { renderServers } from './renderServer.js';
import type { ServerTextCache } from './serverTextCache.js';
import { renderStream, renderStreamModule } from './renderStream.js';

/** ingress-nginx's max-worker-connections when the setting asks for a derived value (0). */
const DEFAULT_WORKER_CONNECTIONS = 16384;

/** `cache`: the servers of the last render it was given, reused where their inputs are the same (serverTextCache.ts). */
export function renderNginxConf(configuration: Configuration, context: RenderContext, cache?: ServerTextCache): string {
  return renderTracedNginxConf(configuration, context, cache).config.bytes.toString();
}

/** nginx.conf with the origin of each line: what the data plane loads, so a refused line names its object. */
export function renderTracedNginxConf(
  configuration: Configuration,
  context: RenderContext,
  cache?: ServerTextCache,
): { config: TracedConfig; origins: OriginTable } {
  const serverTexts = cache?.begin(configuration, context);
  const scope = createRenderScope(configuration, context, serverTexts);
  // Written as it is built: the text alone is held, never a directive tree.
  const { root, finish } = ConfigBuilder.writingText();
  renderRoot(root, scope);
  const config = finish();
  serverTexts?.end();
  return { config, origins: scope.origins };
}

/** The directive tree renderNginxConf writes (for tests that compare it with what nginx would parse). */
export function buildNginxConf(configuration: Configuration, context: RenderContext): readonly ConfigNode[] {
  const root = new ConfigBuilder();
  renderRoot(root, createRenderScope(configuration, context));
  return root.nodes;
}

function renderRoot(root: ConfigBuilder, scope: RenderScope): void {
  const { configuration, context } = scope;
  const { settings } = configuration;
  renderLuaModules(root, context);
  root.from(SETTINGS_ORIGIN, () => renderModSecurityModule(root, configuration, context));
  root.from(SETTINGS_ORIGIN, () => renderGeoip2Module(root, settings, context));
  renderHeadersMoreModule(root, configuration, context);
  renderStreamModule(root, configuration, context);
  // No `daemon`: the process manager runs nginx in the foreground with -g 'daemon off;'.
  if (context.workerUser !== undefined) root.directive('user', literal(context.workerUser));
  // Regex locations and rewrites run PCRE2 per request: JIT-compiled, a hostile path that makes a pattern backtrack
  // up to PCRE2's default match limit (nginx sets none) costs a fraction of the interpreter's CPU.
  root.directive('pcre_jit', onOff(true));
  root.from(SETTINGS_ORIGIN, () => {
    root.directive('worker_processes', workerProcesses(settings));
    renderWorkerLimits(root, settings, context);
    root.directive('error_log', errorLogTarget(settings, context), raw.keyword(settings.errorLogLevel));
    root.directive('worker_shutdown_timeout', raw.time(settings.workerShutdownTimeout));
    renderMainSnippet(root, settings);
    root.block('events', [], (events) => {
      events.directive('worker_connections', raw.integer(settings.maxWorkerConnections || DEFAULT_WORKER_CONNECTIONS));
      events.directive('multi_accept', onOff(settings.enableMultiAccept));
      renderDebugConnections(events, settings);
    });
  });
  root.block('http', [], (http) => {
    renderLuaSettings(http, context, settings);
    http.from(SETTINGS_ORIGIN, () => renderHttpSettings(http, configuration, context));
    http.from(SETTINGS_ORIGIN, () => renderHeaderSettings(http, configuration));
    http.from(SETTINGS_ORIGIN, () => renderGlobalAccessHttp(http, settings));
    http.from(SETTINGS_ORIGIN, () => renderGeoip2Http(http, settings, context));
    renderHttpSnippet(http, settings);
    http.from(SETTINGS_ORIGIN, () => renderBalancerUpstream(http, settings));
    renderRateLimitZones(http, scope);
    http.from(SETTINGS_ORIGIN, () => renderModSecurityHttp(http, settings, context));
    for (const name of backendTlsUpstreams(configuration)) http.from(SETTINGS_ORIGIN, () => renderBalancerUpstream(http, settings, name));
    renderExternalAuthHttp(http, scope);
    renderCorsMaps(http, scope);
    renderServers(http, scope);
    renderNoEndpointsServer(http, context, settings);
  });
  renderStream(root, scope);
}

function workerProcesses(settings: GlobalSettings): Argument {
  return settings.workerProcesses === 'auto' ? raw.keyword('auto') : raw.integer(settings.workerProcesses);
}
