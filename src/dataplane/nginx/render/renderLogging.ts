// The http block's logs, as ingress-nginx's template writes them: the
// `upstreaminfo` format, the access log (a file, or syslog), the URLs it
// skips, and the error log's syslog copy. The main context's error_log is
// renderNginxConf.ts's (errorLogTarget). Nothing here is per location, and
// nothing is pushed: a change of these keys changes nginx.conf, one reload.
//
// Portico itself reads neither log: its request metrics come from the log
// phase's Lua (monitor.lua), and its view of nginx's start and reloads from
// the control log that the command line adds (nginxArguments.ts), so moving
// either log moves only what an operator reads.
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { filePath, literal, raw, template, type Argument } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import type { RenderContext } from './renderContext.js';
import { escapeRegex } from './regex.js';

export const ACCESS_LOG_FORMAT = 'upstreaminfo';

/** "0" for a request target in skip-access-log-urls, "1" otherwise (ingress-nginx's name). */
const LOGGABLE_VARIABLE = '$loggable';

export function renderLogging(http: ConfigBuilder, settings: GlobalSettings, context: RenderContext): void {
  http.directive('log_format', raw.keyword(ACCESS_LOG_FORMAT), ...logFormatEscape(settings), template(settings.logFormatUpstream));
  const condition = renderSkippedUrls(http, settings);
  const syslog = syslogServer(settings);
  if (settings.disableAccessLog) http.directive('access_log', raw.keyword('off'));
  // As ingress-nginx: access-log-params do not apply to syslog (nginx cannot buffer a syslog log).
  else if (syslog !== undefined) http.directive('access_log', syslog, raw.keyword(ACCESS_LOG_FORMAT), ...condition);
  else {
    const path = settings.httpAccessLogPath ?? settings.accessLogPath ?? context.paths.accessLog;
    const parameters = settings.accessLogParams.map((parameter) => raw.accessLogParameter(parameter));
    http.directive('access_log', filePath(path), raw.keyword(ACCESS_LOG_FORMAT), ...parameters, ...condition);
  }
  // Requests' errors go to syslog; the main context's error_log (the master's and workers' own) stays a file.
  if (syslog !== undefined) http.directive('error_log', syslog, raw.keyword(settings.errorLogLevel));
}

/** The main context's error_log: error-log-path, else Portico's file in its prefix. */
export function errorLogTarget(settings: GlobalSettings, context: RenderContext): Argument {
  return filePath(settings.errorLogPath ?? context.paths.errorLog);
}

/** log-format-escape-none wins over log-format-escape-json, as in ingress-nginx; neither: nginx's default escaping. */
function logFormatEscape(settings: GlobalSettings): Argument[] {
  if (settings.logFormatEscapeNone) return [raw.keyword('escape=none')];
  return settings.logFormatEscapeJson ? [raw.keyword('escape=json')] : [];
}

/**
 * skip-access-log-urls: `map $request_uri $loggable`, and `if=$loggable` on
 * access_log; neither without URLs, so that no request evaluates the map for
 * nothing. Each URL is an exact-match regex rather than a map key, as a key
 * beyond ~40 bytes does not fit map_hash_bucket_size's default and nginx
 * would refuse the whole configuration.
 */
function renderSkippedUrls(http: ConfigBuilder, settings: GlobalSettings): Argument[] {
  if (settings.skipAccessLogUrls.length === 0) return [];
  http.block('map', [raw.variable('$request_uri'), raw.variable(LOGGABLE_VARIABLE)], (map) => {
    for (const url of new Set(settings.skipAccessLogUrls)) map.entry(literal(`~^${escapeRegex(url)}$`), literal('0'));
    map.entry(raw.keyword('default'), literal('1'));
  });
  return [raw.accessLogParameter({ name: 'if', variable: LOGGABLE_VARIABLE })];
}

function syslogServer(settings: GlobalSettings): Argument | undefined {
  return settings.enableSyslog && settings.syslogHost !== undefined
    ? raw.syslogServer(settings.syslogHost, settings.syslogPort)
    : undefined;
}
