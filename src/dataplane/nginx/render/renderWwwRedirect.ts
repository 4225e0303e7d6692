// from-to-www-redirect: a server block for the host's www twin (or, for a
// www host, the bare name) that answers every request with the ConfigMap's
// http-redirect-code to the host, as ingress-nginx's redirect servers do:
// `<scheme>://<host>:<port><request URI without one trailing "/">`, the
// scheme and port the client used (X-Forwarded-Proto and -Port with
// use-forwarded-headers), over HTTP and HTTPS. Its certificate is the host's
// when that covers the name, else the default one (live state, liveState.ts),
// set by the default server's ClientHello hook: it sets no TLS directive, so it
// needs no TLS context of its own (renderTlsContext.ts).
import type { Server } from '../../../model/types.js';
import { describeValue, ifMatches, isDnsName, raw, template } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { SETTINGS_ORIGIN } from './configOrigins.js';
import { renderGlobalAccessServer } from './renderGlobalAccess.js';
import type { RenderScope } from './renderScope.js';
import { serverNameArgument } from './serverNames.js';
import { HttpVariable } from './variables.js';

/** The request URI the redirect carries. */
const REDIRECT_URI = '$www_redirect_uri';

const REDIRECT_CODES: ReadonlySet<number> = new Set([301, 302, 307, 308]);

/** After the host's server block: its www redirect's, when it has one. */
export function renderWwwRedirectServer(
  http: ConfigBuilder,
  server: Server,
  scope: RenderScope,
  /** Writes the listen directives of a (non-default) host's server block. */
  renderListens: (block: ConfigBuilder) => void,
): void {
  const redirect = server.wwwRedirect;
  if (redirect === undefined) return;
  if (!isDnsName(server.hostname)) throw new Error(`www redirect to a host that is not a DNS name: ${describeValue(server.hostname)}`);
  const code = scope.configuration.settings.httpRedirectCode;
  if (!REDIRECT_CODES.has(code)) throw new Error(`invalid http-redirect-code: ${describeValue(code)}`);
  http.block('server', [], (block) => {
    renderListens(block);
    block.directive('server_name', serverNameArgument(redirect.hostname));
    block.from(SETTINGS_ORIGIN, () => renderGlobalAccessServer(block, scope.configuration.settings));
    block.directive('set', raw.variable(REDIRECT_URI), raw.variable('$request_uri'));
    block.block('if', ifMatches('$request_uri', '^(.*)/$'), (branch) => {
      branch.directive('set', raw.variable(REDIRECT_URI), template('$1'));
    });
    const location = `${HttpVariable.passAccessScheme}://${server.hostname}:${HttpVariable.passServerPort}${REDIRECT_URI}`;
    block.directive('return', raw.integer(code), template(location));
  });
}
