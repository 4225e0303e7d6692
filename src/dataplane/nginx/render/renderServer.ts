// `server` blocks: one per model Server (HTTP and HTTPS on every one, as
// ingress-nginx), the internal default-server port, and the local status server.
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import type { Server } from '../../../model/types.js';
import { literal, raw, unixSocket, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { renderClientCertificateVerification } from './renderClientCertificates.js';
import { renderErrorPageLocations } from './renderErrorPages.js';
import { renderDefaultPortListens, renderPublicListens } from './renderListen.js';
import { renderGlobalAccessExemption, renderGlobalAccessServer } from './renderGlobalAccess.js';
import { renderGlobalServerSnippet } from './renderGlobalSnippets.js';
import { renderLocations, renderPendingRoutes } from './renderLocation.js';
import { STATUS_ADDRESS, type RenderContext } from './renderContext.js';
import { renderLiveStateEndpoints } from './renderLua.js';
import { renderKeepAliveDrainEndpoint } from './renderKeepAliveDrain.js';
import { renderMirrorLocations } from './renderMirror.js';
import { renderModSecurityOff } from './renderModSecurity.js';
import { renderTlsCiphers } from './renderTlsCiphers.js';
import { renderTlsContext, tlsContextOf } from './renderTlsContext.js';
import { renderRejectHandshake } from './renderTlsSettings.js';
import { renderAppRoot } from './renderRedirects.js';
import type { RenderScope } from './renderScope.js';
import { renderServerSnippet } from './renderServerSnippet.js';
import { SETTINGS_ORIGIN } from './configOrigins.js';
import { CATCH_ALL_HOSTNAME, serverNameArguments } from './serverNames.js';
import { HttpVariable } from './variables.js';
import { renderServerLogDefaults } from './renderLogVariables.js';
import { renderWwwRedirectServer } from './renderWwwRedirect.js';
import { sharedServerBlocks } from './sharedServerBlocks.js';

export function renderServers(http: ConfigBuilder, scope: RenderScope): void {
  const catchAlls = scope.configuration.servers.filter((server) => server.hostname === CATCH_ALL_HOSTNAME);
  // nginx refuses two default servers on one port.
  if (catchAlls.length > 1) throw new Error(`${catchAlls.length} catch-all "${CATCH_ALL_HOSTNAME}" servers; at most one is allowed`);
  // Without a catch-all (hand-built configurations) nginx takes the first server as every listener's default.
  const defaultServer = catchAlls[0] ?? scope.configuration.servers[0];
  for (const server of sharedServerBlocks(scope.configuration, defaultServer)) {
    const takesListenersDefault = server === defaultServer;
    const write = (block: ConfigBuilder, serverScope: RenderScope): void => {
      renderServer(block, server, serverScope, takesListenersDefault);
      renderWwwRedirectServer(block, server, serverScope, (listens) => renderPublicListens(listens, serverScope, false));
    };
    // A directive tree (tests) is written whole; text reuses the cache's servers when the render has it.
    if (scope.serverTexts !== undefined && http.writesText) scope.serverTexts.server(http, server, takesListenersDefault, scope, write);
    else write(http, scope);
  }
  renderDefaultPortServer(http, scope.context, scope.configuration.settings);
  renderStatusServer(http, scope.context, scope.configuration.settings);
  renderConfigurationServer(http, scope.context, scope.configuration.settings);
}

function renderServer(http: ConfigBuilder, server: Server, scope: RenderScope, takesListenersDefault: boolean): void {
  const { configuration } = scope;
  const isDefault = server.hostname === CATCH_ALL_HOSTNAME;

  http.block('server', [], (block) => {
    renderPublicListens(block, scope, isDefault);
    block.directive('server_name', ...serverNameArguments(server));
    block.from(SETTINGS_ORIGIN, () => renderGlobalAccessServer(block, configuration.settings));
    renderTlsContext(block, tlsContextOf(server, scope, takesListenersDefault), scope);
    if (isDefault) renderRejectHandshake(block, configuration.settings);
    renderClientCertificateVerification(block, server, scope);
    renderTlsCiphers(block, server, scope);
    if (server.tls && configuration.settings.hsts) {
      block.directive(
        'add_header',
        raw.headerName('Strict-Transport-Security'),
        raw.variable(HttpVariable.hstsHeader),
        raw.keyword('always'),
      );
    }
    renderServerLogDefaults(block, server, scope);
    if (isDefault) renderPendingRoutes(block, scope);
    renderServerSnippet(block, server, scope);
    renderAppRoot(block, server, scope);
    renderMirrorLocations(block, server, scope);
    renderLocations(block, server, scope);
    renderErrorPageLocations(block, server, scope);
    renderGlobalServerSnippet(block, configuration.settings);
  });
}

/** ingress-nginx's internal catch-all (--default-server-port): 404 for anything. */
function renderDefaultPortServer(http: ConfigBuilder, context: RenderContext, settings: GlobalSettings): void {
  http.block('server', [], (block) => {
    renderDefaultPortListens(block, context, settings);
    block.block('location', [literal('/')], (location) => {
      location.directive('return', raw.integer(404));
    });
  });
}

/** Health and connection metrics (stub_status, read by src/metrics/nginxStatusMetrics.ts), on the loopback address only. */
function renderStatusServer(http: ConfigBuilder, context: RenderContext, settings: GlobalSettings): void {
  const exactly = (path: string): Argument[] => [raw.keyword('='), literal(path)];
  http.block('server', [], (block) => {
    block.directive('listen', raw.listen(STATUS_ADDRESS, context.ports.status), raw.keyword('default_server'));
    block.directive('access_log', raw.keyword('off'));
    renderModSecurityOff(block, settings);
    renderGlobalAccessExemption(block, settings);
    block.block('location', exactly('/healthz'), (location) => {
      location.directive('return', raw.integer(200));
    });
    block.block('location', exactly('/nginx_status'), (location) => {
      location.directive('stub_status');
    });
    block.block('location', [literal('/')], (location) => {
      location.directive('return', raw.integer(404));
    });
  });
}

/**
 * The live-state endpoints for the controller (a push holds private keys and
 * reroutes every host), on a unix socket only: no endpoint address, however
 * spelled, reaches it, and its folder is the controller's alone.
 */
function renderConfigurationServer(http: ConfigBuilder, context: RenderContext, settings: GlobalSettings): void {
  http.block('server', [], (block) => {
    block.directive('listen', unixSocket(context.paths.configurationSocket));
    block.directive('access_log', raw.keyword('off'));
    renderModSecurityOff(block, settings);
    renderLiveStateEndpoints(block, context);
    renderKeepAliveDrainEndpoint(block);
    block.block('location', [literal('/')], (location) => {
      location.directive('return', raw.integer(404));
    });
  });
}
