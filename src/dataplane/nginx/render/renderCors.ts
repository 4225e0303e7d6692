// CORS (corsAnnotations.ts) as ingress-nginx's template answers it, without
// its headers-more module: a request from an allowed origin gets the
// Access-Control-* headers on whatever it is answered with, and its preflight
// (OPTIONS) a 204 from nginx itself; any other request passes untouched.
//
// The per-request decision is nginx maps at the http level, evaluated only
// when a CORS location reads them: for an origin list, one map matches
// $http_origin against a regex built from the validated origins and gives the
// origin or ""; each header's value is a map on that result ("" for a foreign
// origin, and add_header sends no empty header). `*` needs no map. Maps are
// named by a digest of the CORS settings, so locations with the same settings
// share them. Locations without CORS get nothing.
import { createHash } from 'node:crypto';
import type { Cors } from '../../../model/annotations/corsAnnotations.js';
import type { Configuration, Location, Server } from '../../../model/types.js';
import { ifEquals, literal, raw, text, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { escapeRegex } from './regex.js';
import type { RenderScope } from './renderScope.js';
import { HttpVariable } from './variables.js';

/** "on" for an OPTIONS request: with `*`, every OPTIONS request is a preflight, as in ingress-nginx. */
const OPTIONS_REQUEST = '$portico_cors_options';

/** One label in place of ingress-nginx's `*.` wildcard. */
const WILDCARD_LABEL = '[A-Za-z0-9-]+';

interface CorsHeader {
  name: string;
  /** The variable's name suffix when the header depends on the origin. */
  key: string;
  value: Argument;
}

/** ingress-nginx's headers, in its order; credentials and expose headers only when they say something. */
function corsHeaders(cors: Cors): CorsHeader[] {
  return [
    ...(cors.allowCredentials ? [{ name: 'Access-Control-Allow-Credentials', key: 'credentials', value: text('true') }] : []),
    { name: 'Access-Control-Allow-Methods', key: 'methods', value: text(cors.allowMethods) },
    { name: 'Access-Control-Allow-Headers', key: 'headers', value: text(cors.allowHeaders) },
    ...(cors.exposeHeaders === '' ? [] : [{ name: 'Access-Control-Expose-Headers', key: 'expose', value: text(cors.exposeHeaders) }]),
    { name: 'Access-Control-Max-Age', key: 'max_age', value: raw.integer(cors.maxAge) },
  ];
}

/** `$portico_cors_<digest>_<suffix>`: the digest of the settings, so equal settings share their maps. */
function corsVariable(cors: Cors, suffix: string): string {
  const digest = createHash('sha256').update(JSON.stringify(cors)).digest('hex').slice(0, 16);
  return `$portico_cors_${digest}_${suffix}`;
}

/**
 * Case-insensitive as ingress-nginx's `~*`, and anchored at both ends (it
 * anchors only the end, so `https://a.example` also admitted
 * `xhttps://a.example`, another scheme's origin).
 */
export function originRegex(origins: readonly string[]): string {
  const alternatives = origins.map((origin) => {
    const wildcard = origin.indexOf('://*.');
    if (wildcard === -1) return escapeRegex(origin);
    return `${escapeRegex(origin.slice(0, wildcard))}://${WILDCARD_LABEL}${escapeRegex(origin.slice(wildcard + 4))}`;
  });
  return `~*^(?:${alternatives.join('|')})$`;
}

/** The CORS settings of the configuration's locations, one per distinct value. */
function distinctCors(configuration: Configuration): Cors[] {
  const found = new Map<string, Cors>();
  for (const server of configuration.servers) {
    for (const { annotations } of server.locations) {
      if (annotations.cors !== undefined) found.set(JSON.stringify(annotations.cors), annotations.cors);
    }
  }
  return [...found.values()];
}

/** The http level's maps; nothing when no location has CORS. */
export function renderCorsMaps(http: ConfigBuilder, scope: RenderScope): void {
  const all = distinctCors(scope.configuration);
  if (all.length === 0) return;
  http.block('map', [raw.variable('$request_method'), raw.variable(OPTIONS_REQUEST)], (map) => {
    map.entry(literal('OPTIONS'), raw.keyword('on'));
    map.entry(raw.keyword('default'), literal(''));
  });
  for (const cors of all) {
    const origins = cors.allowOrigins;
    if (origins === '*' || origins.length === 0) continue;
    const origin = corsVariable(cors, 'origin');
    http.block('map', [raw.variable('$http_origin'), raw.variable(origin)], (map) => {
      map.entry(raw.keyword('default'), literal(''));
      map.entry(literal(originRegex(origins)), raw.variable('$http_origin'));
    });
    const dependsOnOrigin = (variable: string, value: Argument) =>
      http.block('map', [raw.variable(origin), raw.variable(variable)], (map) => {
        map.entry(literal(''), literal(''));
        map.entry(raw.keyword('default'), value);
      });
    dependsOnOrigin(corsVariable(cors, 'preflight'), raw.variable(OPTIONS_REQUEST));
    for (const header of corsHeaders(cors)) dependsOnOrigin(corsVariable(cors, header.key), header.value);
  }
}

/** What a location with CORS adds: its headers, in order, with their values (literal for `*`, else the maps'). */
function locationHeaders(location: Location): Array<[string, Argument]> | undefined {
  const { cors } = location.annotations;
  // An origin list that kept no origin allows none: nothing to render.
  if (cors === undefined || cors.allowOrigins.length === 0) return undefined;
  const any = cors.allowOrigins === '*';
  return [
    ['Access-Control-Allow-Origin', any ? text('*') : raw.variable(corsVariable(cors, 'origin'))],
    ...corsHeaders(cors).map(({ name, key, value }): [string, Argument] => [name, any ? value : raw.variable(corsVariable(cors, key))]),
  ];
}

/** add_header ... always; an add_header in a block hides the server's, so HSTS is repeated (once: external auth may have). */
function addHeaders(block: ConfigBuilder, headers: Array<[string, Argument]>, server: Server, scope: RenderScope): void {
  for (const [name, value] of headers) block.directive('add_header', raw.headerName(name), value, raw.keyword('always'));
  const hsts = server.tls && scope.configuration.settings.hsts;
  if (hsts && !addsHeader(block, 'Strict-Transport-Security')) {
    block.directive(
      'add_header',
      raw.headerName('Strict-Transport-Security'),
      raw.variable(HttpVariable.hstsHeader),
      raw.keyword('always'),
    );
  }
}

/**
 * The preflight's 204, with the headers and ingress-nginx's Content-Type
 * (without its ";") and Content-Length. In the rewrite phase, before the HTTPS
 * redirect, and so before any access check, as ingress-nginx's `if`.
 */
export function renderCorsPreflight(body: ConfigBuilder, location: Location, server: Server, scope: RenderScope): void {
  const headers = locationHeaders(location);
  const cors = location.annotations.cors;
  if (headers === undefined || cors === undefined) return;
  const preflight = cors.allowOrigins === '*' ? OPTIONS_REQUEST : corsVariable(cors, 'preflight');
  body.block('if', ifEquals(preflight, 'on'), (branch) => {
    addHeaders(branch, [...headers, ['Content-Type', text('text/plain charset=UTF-8')], ['Content-Length', text('0')]], server, scope);
    branch.directive('return', raw.integer(204));
  });
}

/** The headers on every other answer (after external auth's add_header, so HSTS is written once). */
export function renderCorsHeaders(body: ConfigBuilder, location: Location, server: Server, scope: RenderScope): void {
  const headers = locationHeaders(location);
  if (headers !== undefined) addHeaders(body, headers, server, scope);
}

function addsHeader(block: ConfigBuilder, name: string): boolean {
  return block.hasDirective('add_header', name);
}
