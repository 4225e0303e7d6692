// The http block's own directives: files, logging, timeouts, TLS defaults and
// the variables (maps) that servers and locations rely on.
import type { Configuration } from '../../../model/types.js';
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { DOLLAR_VARIABLE, describeValue, filePath, literal, raw, template, text, type Argument, type Keyword } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderContext } from './renderContext.js';
import { renderLogging } from './renderLogging.js';
import { tlsHopPort } from './renderSslPassthrough.js';
import { renderForwardedVariables, renderRealIp } from './renderClientAddress.js';
import { renderCompression } from './renderCompression.js';
import { renderHttpTuning } from './renderHttpTuning.js';
import { renderProxyTuningDefaults } from './renderProxyTuning.js';
import { renderHttpProxyDefaults } from './renderProxyInheritance.js';
import { renderRedirectDefaults } from './renderRedirects.js';
import { renderTlsSettings } from './renderTlsSettings.js';
import { serverNamesHashSizes } from './serverNames.js';
import { allServerNames } from '../../../model/hostAliases.js';
import { HttpVariable } from './variables.js';
import { renderLogVariableMaps } from './renderLogVariables.js';

export function renderHttpSettings(http: ConfigBuilder, configuration: Configuration, context: RenderContext): void {
  const { settings } = configuration;
  http.directive('include', filePath(context.paths.mimeTypes));
  http.directive('default_type', literal(settings.defaultType));
  http.directive('server_tokens', onOff(settings.serverTokens));

  const hashSizes = serverNamesHashSizes(configuration.servers.flatMap(allServerNames), {
    bucketSize: settings.serverNameHashBucketSize,
    maxSize: settings.serverNameHashMaxSize,
  });
  http.directive('server_names_hash_bucket_size', raw.integer(hashSizes.bucketSize));
  http.directive('server_names_hash_max_size', raw.integer(hashSizes.maxSize));

  const { temp } = context.paths;
  http.directive('client_body_temp_path', filePath(temp.clientBody));
  http.directive('proxy_temp_path', filePath(temp.proxy));
  http.directive('fastcgi_temp_path', filePath(temp.fastcgi));
  http.directive('uwsgi_temp_path', filePath(temp.uwsgi));
  http.directive('scgi_temp_path', filePath(temp.scgi));

  // Before the first map (skip-access-log-urls' is next): nginx refuses map_hash_bucket_size once a map exists.
  renderHttpTuning(http, settings);
  renderLogging(http, settings, context);

  http.directive('keepalive_timeout', raw.seconds(settings.keepAlive));
  http.directive('keepalive_requests', raw.integer(settings.keepAliveRequests));
  http.directive('client_header_timeout', raw.seconds(settings.clientHeaderTimeout));
  http.directive('client_body_timeout', raw.seconds(settings.clientBodyTimeout));
  renderHttpProxyDefaults(http, configuration);
  renderProxyTuningDefaults(http, settings);
  renderCompression(http, settings);

  http.directive('ssl_protocols', ...settings.sslProtocols.map((protocol) => raw.keyword(tlsProtocol(protocol))));
  http.directive('ssl_ciphers', literal(settings.sslCiphers));
  http.directive('ssl_prefer_server_ciphers', raw.keyword('on'));
  renderTlsSettings(http, configuration, context);

  renderRealIp(http, settings, tlsHopPort(configuration, context));
  renderVariables(http, settings, tlsHopPort(configuration, context));
  renderRedirectDefaults(http, settings);
}

function renderVariables(http: ConfigBuilder, settings: GlobalSettings, hopPort: number | undefined): void {
  // The only way to write a literal `$` where nginx interpolates (see text()); geo values are never interpolated.
  http.block('geo', [raw.variable(DOLLAR_VARIABLE)], (geo) => {
    geo.entry(raw.keyword('default'), literal('$'));
  });

  // Upgrade for websockets; otherwise an empty Connection keeps upstream connections alive.
  defineMap(
    http,
    raw.variable('$http_upgrade'),
    HttpVariable.connectionUpgrade,
    raw.keyword('upgrade'),
    settings.upstreamKeepaliveConnections > 0 ? text('') : raw.keyword('close'),
  );

  defineMap(
    http,
    raw.variable('$http_x_request_id'),
    HttpVariable.requestId,
    raw.variable('$http_x_request_id'),
    settings.generateRequestId ? raw.variable('$request_id') : undefined,
  );

  // The Host header as the client sent it (with its port); $host for HTTP/1.0 without one.
  defineMap(http, raw.variable('$http_host'), HttpVariable.thisHost, raw.variable('$http_host'), raw.variable('$host'));

  renderForwardedVariables(http, settings, hopPort);
  renderLogVariableMaps(http);

  // Redirects name the HTTPS port themselves, so drop the port of the host: `example.com`, `[::1]`;
  // of an X-Forwarded-Host list, the first host (as ingress-nginx's parse_x_forwarded_host).
  http.block('map', [raw.variable(HttpVariable.bestHttpHost), raw.variable(HttpVariable.redirectHost)], (map) => {
    map.entry(literal('~^(\\[[^\\]]*\\]|[^:,]+)'), template('$1'));
    map.entry(raw.keyword('default'), raw.variable(HttpVariable.bestHttpHost));
  });

  if (settings.hsts) {
    // $https is "on" over TLS only; add_header skips an empty value, so plain HTTP gets no HSTS.
    http.block('map', [raw.variable('$https'), raw.variable(HttpVariable.hstsHeader)], (map) => {
      map.entry(raw.keyword('on'), text(hstsValue(settings)));
      map.entry(raw.keyword('default'), text(''));
    });
  }
}

/** `map <source> <variable> { default <otherwise>; "" <whenEmpty>; }` */
function defineMap(http: ConfigBuilder, source: Argument, variable: string, otherwise: Argument, whenEmpty: Argument | undefined): void {
  http.block('map', [source, raw.variable(variable)], (map) => {
    map.entry(raw.keyword('default'), otherwise);
    if (whenEmpty !== undefined) map.entry(literal(''), whenEmpty);
  });
}

function hstsValue(settings: GlobalSettings): string {
  if (!Number.isSafeInteger(settings.hstsMaxAge) || settings.hstsMaxAge < 0) {
    throw new Error(`invalid hsts-max-age: ${settings.hstsMaxAge}`);
  }
  return [
    `max-age=${settings.hstsMaxAge}`,
    ...(settings.hstsIncludeSubdomains ? ['includeSubDomains'] : []),
    ...(settings.hstsPreload ? ['preload'] : []),
  ].join('; ');
}

const TLS_PROTOCOLS: readonly Keyword[] = ['SSLv2', 'SSLv3', 'TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

export function tlsProtocol(protocol: string): Keyword {
  const known = TLS_PROTOCOLS.find((candidate) => candidate === protocol);
  if (known === undefined) throw new Error(`unknown ssl-protocols entry: ${describeValue(protocol)}`);
  return known;
}

export function onOff(value: boolean): Argument {
  return raw.keyword(value ? 'on' : 'off');
}
