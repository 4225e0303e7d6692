// Redirects nginx answers itself (model/annotations/redirectAnnotations.ts), where
// ingress-nginx's template puts them, so they take precedence as there: app-root
// in the server (its rewrite phase runs before any location's), then in the
// location permanent/temporal-redirect's `return` before the HTTPS redirect (both
// in the rewrite phase, in this order), so neither reaches the backend nor an
// access check. Locations without these annotations get nothing from here.
import type { Redirects } from '../../../model/annotations/redirectAnnotations.js';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import type { Server } from '../../../model/types.js';
import { ifEquals, literal, raw, template, text, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderScope } from './renderScope.js';
import { HttpVariable } from './variables.js';

/** $request_uri without one trailing `/` (`/` becomes empty), as ingress-nginx's HTTPS redirect sends it. */
const REQUEST_URI_WITHOUT_TRAILING_SLASH = '$redirect_request_uri';

/**
 * In the http block: nginx's own absolute redirects leave out the port unless
 * a location asks for it (as ingress-nginx), relative ones stay relative with
 * the ConfigMap's relative-redirects (a location's `false` cannot undo it, as
 * there), and the variable the HTTPS redirect uses (a map is evaluated only
 * when a redirect reads it).
 */
export function renderRedirectDefaults(http: ConfigBuilder, settings: GlobalSettings): void {
  http.directive('port_in_redirect', raw.keyword('off'));
  if (settings.relativeRedirects) http.directive('absolute_redirect', raw.keyword('off'));
  http.block('map', [raw.variable('$request_uri'), raw.variable(REQUEST_URI_WITHOUT_TRAILING_SLASH)], (map) => {
    map.entry(literal('~^(.*)/$'), template('$1'));
    map.entry(raw.keyword('default'), raw.variable('$request_uri'));
  });
}

/**
 * In the server, before its locations: the first app-root of its locations
 * (in the model's order). ingress-nginx writes one `if` per location, of which
 * the first one wins too. No query string follows, as there.
 */
export function renderAppRoot(server: ConfigBuilder, model: Server, scope: RenderScope): void {
  const location = model.locations.find((candidate) => candidate.annotations.redirects?.appRoot !== undefined);
  const appRoot = location?.annotations.redirects?.appRoot;
  if (location === undefined || appRoot === undefined) return;
  server.from(scope.origins.ingress(location.ingress), () => {
    server.block('if', ifEquals('$uri', '/'), (branch) => {
      // The model allowed only variable references nginx.conf has (parseAppRoot).
      branch.directive('return', raw.integer(302), template(`$scheme://$http_host${appRoot}`));
    });
  });
}

/** In a location, before the HTTPS redirect: how nginx writes its redirects, and permanent/temporal-redirect. */
export function renderLocationRedirects(body: ConfigBuilder, redirects: Redirects | undefined): void {
  if (redirects === undefined) return;
  if (redirects.relative) body.directive('absolute_redirect', raw.keyword('off'));
  if (redirects.usePortInRedirects) body.directive('port_in_redirect', raw.keyword('on'));
  const { redirect } = redirects;
  if (redirect !== undefined) body.directive('return', raw.integer(redirectCode(redirect.code)), text(redirect.url));
}

function redirectCode(code: number): number {
  if (!Number.isInteger(code) || code < 300 || code > 308) throw new Error(`invalid redirect code: ${code}`);
  return code;
}

/**
 * The HTTPS redirect's Location, as ingress-nginx's lua_ingress.lua builds it:
 * the host without its port, the request URI without a trailing `/` unless
 * preserve-trailing-slash, and the HTTPS port (even 443) only with use-port-in-redirects.
 */
export function httpsRedirectLocation(redirects: Redirects | undefined, httpsPort: number): Argument {
  const port = redirects?.usePortInRedirects ? `:${raw.integer(httpsPort).token}` : '';
  const uri = redirects?.preserveTrailingSlash ? '$request_uri' : REQUEST_URI_WITHOUT_TRAILING_SLASH;
  return template(`https://${HttpVariable.redirectHost}${port}${uri}`);
}
