// The log variables of ingress-nginx ($proxy_upstream_name, $namespace,
// $ingress_name, $service_name, $service_port, $location_path,
// $proxy_alternative_upstream_name), which log-format-upstream, snippets,
// the custom-http-errors headers and Portico's Lua read. A location sets two:
// $proxy_upstream_name (the balancer reads it on every request) and
// $portico_location, its other fields in one value; the http block defines
// the rest as `map`s over it, which nginx computes only in a request that
// reads them (the default log format does not), and the defaults of a
// request no location has set them for. Six `set`s per location and seven
// per server were 405,000 lines and 61 % of nginx.conf at 10,000 Ingresses
// (docs/scale.md), and each `set` is code nginx compiles into the location.
import type { Backend, Location, Server } from '../../../model/types.js';
import { locationLogFields, type LocationLogFields } from '../../locationLogFields.js';
import { describeValue, literal, raw, template, text } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderScope } from './renderScope.js';
import { CATCH_ALL_HOSTNAME } from './serverNames.js';

/** A location's fields, `<namespace> <ingress> <service> <port> <path>` (lua/portico/monitor.lua and routes.lua read and write it). */
export const LOCATION_VARIABLE = '$portico_location';
const UPSTREAM_VARIABLE = '$proxy_upstream_name';
const ALTERNATIVE_UPSTREAM_VARIABLE = '$proxy_alternative_upstream_name';

/**
 * Each field's map: the n-th space-separated part of $portico_location, the
 * path the rest (it may hold spaces; `(?s)`: and a newline). The names have
 * no space (locationVariableValue checks it).
 */
const FIELD_MAPS: ReadonlyArray<readonly [variable: string, regex: string]> = [
  ['$namespace', '^([^ ]*) '],
  ['$ingress_name', '^[^ ]* ([^ ]*) '],
  ['$service_name', '^(?:[^ ]* ){2}([^ ]*) '],
  ['$service_port', '^(?:[^ ]* ){3}([^ ]*) '],
  ['$location_path', '(?s)^(?:[^ ]* ){4}(.*)'],
];

/**
 * In the http block. The defaults are maps of a constant (a `set` in a
 * location overrides a map's value): nginx warns about every request that
 * reads a variable only `set` declares where no `set` ran, and refuses a log
 * format that names a variable nothing declares.
 */
export function renderLogVariableMaps(http: ConfigBuilder): void {
  const constant = (variable: string, value: string): void => {
    http.block('map', [literal(''), raw.variable(variable)], (map) => {
      map.entry(raw.keyword('default'), text(value));
    });
  };
  constant(UPSTREAM_VARIABLE, '-');
  constant(ALTERNATIVE_UPSTREAM_VARIABLE, '');
  constant(LOCATION_VARIABLE, '');
  for (const [variable, regex] of FIELD_MAPS) {
    http.block('map', [raw.variable(LOCATION_VARIABLE), raw.variable(variable)], (map) => {
      map.entry(literal(`~${regex}`), template('$1'));
      map.entry(raw.keyword('default'), text(''));
    });
  }
}

/**
 * In a server block: $proxy_alternative_upstream_name back to "" at every
 * internal redirect to a URI (nginx runs the server's `set`s again), as
 * ingress-nginx's locations each set it. Only the balancer's canary choice
 * makes it anything else, so only a server that may proxy to a backend with
 * a canary needs it: the catch-all (its pending routes may) and servers with
 * such a location.
 */
export function renderServerLogDefaults(server: ConfigBuilder, model: Server, scope: RenderScope): void {
  const mayChooseCanary =
    model.hostname === CATCH_ALL_HOSTNAME ||
    model.locations.some((location) => location.backend !== undefined && scope.backends.get(location.backend)?.canary !== undefined);
  if (mayChooseCanary) server.directive('set', raw.variable(ALTERNATIVE_UPSTREAM_VARIABLE), text(''));
}

/** A location's own values; `backend` undefined for a 404 or a name the model does not list. */
export function setLocationLogVariables(builder: ConfigBuilder, location: Location, backend: Backend | undefined): void {
  const fields = locationLogFields(location, backend);
  builder.directive('set', raw.variable(UPSTREAM_VARIABLE), text(fields.upstream));
  builder.directive('set', raw.variable(LOCATION_VARIABLE), text(locationVariableValue(fields)));
}

/** $portico_location's value. The model admits only Kubernetes names (ingressNames.ts), which have no space. */
export function locationVariableValue(fields: LocationLogFields): string {
  const names = [fields.namespace, fields.ingress, fields.service, fields.servicePort];
  const spaced = names.find((name) => name.includes(' '));
  if (spaced !== undefined) throw new Error(`a location's log field holds a space: ${describeValue(spaced)}`);
  return [...names, fields.locationPath].join(' ');
}
