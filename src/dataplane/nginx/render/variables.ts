// nginx variables Portico defines, by name, so every module spells them the same.
import type { Backend, Location } from '../../../model/types.js';
import { locationLogFields } from '../../locationLogFields.js';
import { raw, text } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';

/** Defined by `map`s in the http block (renderHttp.ts). */
export const HttpVariable = {
  connectionUpgrade: '$connection_upgrade',
  requestId: '$req_id',
  thisHost: '$this_host',
  bestHttpHost: '$best_http_host',
  passAccessScheme: '$pass_access_scheme',
  passServerPort: '$pass_server_port',
  /** $best_http_host without its port, for redirects to HTTPS. */
  redirectHost: '$redirect_host',
  hstsHeader: '$hsts_header',
} as const;

/**
 * Per-request variables for log formats (ingress-nginx's names, so existing
 * log-format-upstream values keep working): every server sets the defaults,
 * every location its own values. nginx refuses a log format naming a variable
 * no `set` declares.
 */
const LOG_VARIABLE_DEFAULTS = {
  $proxy_upstream_name: '-',
  $proxy_alternative_upstream_name: '',
  $namespace: '',
  $ingress_name: '',
  $service_name: '',
  $service_port: '',
  $location_path: '',
} as const;

export type LogVariable = keyof typeof LOG_VARIABLE_DEFAULTS;

export function setLogVariableDefaults(server: ConfigBuilder): void {
  setLogVariables(server, LOG_VARIABLE_DEFAULTS);
}

/** `set` interpolates, so the values (from Kubernetes objects) go through `text()`. */
export function setLogVariables(builder: ConfigBuilder, values: Partial<Record<LogVariable, string>>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) builder.directive('set', raw.variable(name), text(value));
  }
}

/** A location's own values (locationLogFields); `backend` undefined for a 404 or a name the model does not list. */
export function setLocationLogVariables(builder: ConfigBuilder, location: Location, backend: Backend | undefined): void {
  const log = locationLogFields(location, backend);
  setLogVariables(builder, {
    $proxy_upstream_name: log.upstream,
    $namespace: log.namespace,
    $ingress_name: log.ingress,
    $service_name: log.service,
    $service_port: log.servicePort,
    $location_path: log.locationPath,
  });
}
