// The redirect of plain HTTP to HTTPS (ssl-redirect, force-ssl-redirect) in a
// location, with the ConfigMap's http-redirect-code and the Location of
// httpsRedirectLocation().
//
// A proxied location redirects from its rewrite_by_lua_block
// (lua/portico/https_redirect.lua) rather than from
// `if ($pass_access_scheme = http) { return ...; }`: nginx gives every `if`
// a location configuration of its own, about 10 KiB of the master's memory
// each, and TLS locations had one each (20,004 of them, 194 MiB, at 10,000
// synthetic Ingresses: docs/scale.md). Lua's rewrite handler runs after the
// rewrite module's directives, so the `if` stays where one written after
// the redirect's place could answer the request or change what its log
// records: a location without a backend (`return 404`), a snippet (any
// directive), external auth, an unusable custom-headers ConfigMap, FastCGI
// ConfigMap or proxy-ssl-secret (`return 503`), the default-backend fallback
// of custom-http-errors (`set $proxy_upstream_name`). Anything else the
// location writes after that place must be outside the rewrite module, which
// requireLuaRedirectFirst() checks once the location is written. The one
// exception is a rewrite-target's `rewrite ... break`: it changes $uri and
// the captures, not what the redirect sends ($request_uri), and it runs
// before the redirect as in ingress-nginx, whose redirect is Lua too.
import type { LocationAnnotations, Location } from '../../../model/types.js';
import { describeValue, ifEquals, raw } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { luaCall, type LuaCall, type LuaOption } from './luaCall.js';
import { appliedExternalAuth } from './renderExternalAuth.js';
import { httpsRedirectLocation } from './renderRedirects.js';
import type { RenderScope } from './renderScope.js';
import { HttpVariable } from './variables.js';

const MODULE = 'portico.https_redirect';

const REDIRECT_CODES: ReadonlySet<number> = new Set([301, 302, 307, 308]);

/** The rewrite-module directives that must not follow the Lua redirect's place (`rewrite` may: see above). */
const ANSWERING_DIRECTIVES: ReadonlySet<string> = new Set(['return', 'if', 'set', 'break']);

/** The Lua redirect of a location: its call, first in the location's rewrite_by_lua_block, and where it stands among the location's directives. */
export interface LuaHttpsRedirect {
  readonly call: LuaCall;
  readonly place: number;
}

/**
 * At the redirect's place in the location (after its `set`s, CORS preflight,
 * permanent/temporal-redirect; before access checks): the `if`, or the Lua
 * call for the location's rewrite_by_lua_block.
 */
export function renderHttpsRedirect(body: ConfigBuilder, location: Location, scope: RenderScope): LuaHttpsRedirect | undefined {
  if (!redirectsInLua(location, scope)) {
    body.block('if', ifEquals(HttpVariable.passAccessScheme, 'http'), (branch) =>
      renderHttpsRedirectReturn(branch, location.annotations.redirects, scope),
    );
    return undefined;
  }
  const { redirects } = location.annotations;
  const options: Record<string, LuaOption> = { code: httpRedirectCode(scope) };
  if (redirects?.usePortInRedirects) options.port = scope.context.ports.https;
  if (redirects?.preserveTrailingSlash) options.preserve_trailing_slash = true;
  return { call: luaCall(MODULE, 'rewrite', options), place: body.directiveCount };
}

/** Once the location is written: nothing the rewrite module runs before Lua's handler may follow the redirect's place. */
export function requireLuaRedirectFirst(body: ConfigBuilder, redirect: LuaHttpsRedirect, location: Location): void {
  const late = body.directiveNames(redirect.place).find((name) => ANSWERING_DIRECTIVES.has(name));
  if (late !== undefined || body.hasVerbatim())
    throw new Error(`location ${describeValue(location.path)}: ${late ?? 'a snippet'} would run before its HTTPS redirect`);
}

/** The `return` of the redirect to HTTPS, with the ConfigMap's http-redirect-code (also the pending routes'). */
export function renderHttpsRedirectReturn(body: ConfigBuilder, redirects: LocationAnnotations['redirects'], scope: RenderScope): void {
  body.directive('return', raw.integer(httpRedirectCode(scope)), httpsRedirectLocation(redirects, scope.context.ports.https));
}

function httpRedirectCode(scope: RenderScope): number {
  const code = scope.configuration.settings.httpRedirectCode;
  if (!REDIRECT_CODES.has(code)) throw new Error(`invalid http-redirect-code: ${describeValue(code)}`);
  return code;
}

/** Whether nothing after the redirect's place can answer the request or change its log (see the top of this file). */
function redirectsInLua(location: Location, scope: RenderScope): boolean {
  const { annotations } = location;
  const { settings } = scope.configuration;
  return (
    location.backend !== undefined &&
    annotations.configurationSnippet === undefined &&
    settings.locationSnippet === undefined &&
    appliedExternalAuth(location, settings) === undefined &&
    annotations.customHeaders?.denied === undefined &&
    annotations.fastCgi?.denied === undefined &&
    (annotations.backendTls === undefined || annotations.backendTls.files !== undefined) &&
    annotations.errorPages?.defaultBackend === undefined
  );
}
