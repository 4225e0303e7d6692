// Where nginx writes its logs and what it leaves out: the access and error log
// paths, access_log's parameters, the URLs never logged, syslog, escape=none,
// and the default backend's access log. The existing logging keys
// (log-format-upstream, log-format-escape-json, disable-access-log,
// error-log-level) are core settings. Rendered by renderLogging.ts.
import { isIP } from 'node:net';
import { isHost } from '../../annotations/externalAuthUrl.js';
import { parseAccessLogParameters, type AccessLogParameter } from '../accessLogParameters.js';
import { logFormatParser } from '../logFormatVariables.js';
import type { SpecTable } from '../settingSpec.js';
import { integerParser, listParser, parseBoolean, patternParser, type ValueParser } from '../valueSyntax.js';

export interface LoggingSettings {
  /** access-log-path: undefined is Portico's own file in its nginx prefix (logs/access.log), where ingress-nginx has /var/log/nginx/access.log. */
  accessLogPath: string | undefined;
  /** http-access-log-path: the http block's access log, instead of access-log-path. */
  httpAccessLogPath: string | undefined;
  /** stream-access-log-path: the stream block's access log, instead of access-log-path. */
  streamAccessLogPath: string | undefined;
  /** log-format-stream: the stream block's log_format (`log_stream`; no escape= there, as ingress-nginx). */
  logFormatStream: string;
  /** disable-stream-access-log: the stream block's access log off (config.go reads it; configmap.md leaves it out). */
  disableStreamAccessLog: boolean;
  /** error-log-path: undefined is Portico's own file in its nginx prefix (logs/error.log), where ingress-nginx has /var/log/nginx/error.log. */
  errorLogPath: string | undefined;
  /** access-log-params: after the format on the access_log line (not with syslog, as ingress-nginx). */
  accessLogParams: AccessLogParameter[];
  /** log-format-escape-none: `escape=none` on log_format, before log-format-escape-json. */
  logFormatEscapeNone: boolean;
  /** skip-access-log-urls: request targets ($request_uri, query included) that write no access log line. */
  skipAccessLogUrls: string[];
  /** enable-access-log-for-default-backend: log the requests the catch-all server's default backend answers. */
  enableAccessLogForDefaultBackend: boolean;
  /** enable-syslog: the access log and the http block's error log go to syslog-host:syslog-port over UDP. */
  enableSyslog: boolean;
  /** syslog-host: an IP address (IPv6 in brackets) or a DNS name, which nginx resolves when it loads the configuration. */
  syslogHost: string | undefined;
  /** syslog-port */
  syslogPort: number;
}

/** Linux's PATH_MAX is 4096, nginx's longest token 4096 bytes; no log path is near a quarter of either. */
export const MAX_LOG_PATH_LENGTH = 1024;

/** Escaped as a regex (every character may double), it stays well under nginx's 4096-byte token. */
export const MAX_SKIPPED_URL_LENGTH = 1024;

export const DEFAULT_LOG_FORMAT_STREAM = '[$remote_addr] [$time_local] $protocol $status $bytes_sent $bytes_received $session_time';

export const LOGGING_DEFAULTS: LoggingSettings = {
  accessLogPath: undefined,
  httpAccessLogPath: undefined,
  streamAccessLogPath: undefined,
  logFormatStream: DEFAULT_LOG_FORMAT_STREAM,
  disableStreamAccessLog: false,
  errorLogPath: undefined,
  accessLogParams: [],
  logFormatEscapeNone: false,
  skipAccessLogUrls: [],
  enableAccessLogForDefaultBackend: false,
  enableSyslog: false,
  syslogHost: undefined,
  syslogPort: 514,
};

/**
 * An absolute file path nginx opens as written: no `$` (access_log would open
 * a file per request by its variables), no glob or quote characters, no
 * whitespace (ingress-nginx writes the path unquoted), not a directory, at
 * most MAX_LOG_PATH_LENGTH characters (nginx takes no longer token).
 * `syslog:` and `off` are not paths (enable-syslog and disable-access-log say those).
 */
export const parseLogFilePath: ValueParser<string> = patternParser(
  new RegExp(`^/[^\\s$*?[\\]{}"'\\\\;#]{0,${MAX_LOG_PATH_LENGTH - 2}}[^\\s$*?[\\]{}"'\\\\;#/]$`),
  `an absolute file path such as /var/log/nginx/access.log or /dev/stdout, without spaces, quotes, "$", ";" or glob characters, at most ${MAX_LOG_PATH_LENGTH} characters`,
);

/**
 * error_log also takes `stderr`, nginx's own standard error (Portico's, which
 * the master inherits); /dev/stderr is read as it, since `nginx -t` could not
 * open /dev/stderr while Portico reads the test's errors from a pipe.
 */
const parseErrorLogPath: ValueParser<string> = (text) => {
  if (text === 'stderr' || text === '/dev/stderr') return { ok: true, value: 'stderr' };
  const parsed = parseLogFilePath(text);
  return parsed.ok ? parsed : { ok: false, expected: `"stderr" or ${parsed.expected}` };
};

/** An IPv4 address, an IPv6 address (stored in brackets, as syslog:server= needs it) or a DNS name (stored in lower case). */
export const parseSyslogHost: ValueParser<string> = (text) => {
  const host = isIP(text) === 6 ? `[${text}]` : text.toLowerCase();
  return isHost(host) ? { ok: true, value: host } : { ok: false, expected: 'an IP address or a DNS name' };
};

/** "" is unset (ingress-nginx's default for these keys): the fallback applies. */
function unlessEmpty<T>(parse: ValueParser<T>): ValueParser<T | undefined> {
  return (text) => (text === '' ? { ok: true, value: undefined } : parse(text));
}

/** A request target as $request_uri holds it (starting with "/"), matched exactly; nothing a map key could read as a regex or a keyword. */
const parseRequestTarget = patternParser(
  new RegExp(`^/[\\x21-\\x7e]{0,${MAX_SKIPPED_URL_LENGTH - 1}}$`),
  `a request target starting with "/", of printable ASCII, at most ${MAX_SKIPPED_URL_LENGTH} characters`,
);

/** The variables of nginx's stream modules (core, upstream, realip, ssl_preread, ssl), and ingress-nginx's $proxy_upstream_name, for log-format-stream. */
const STREAM_VARIABLES = new Set([
  'binary_remote_addr',
  'bytes_received',
  'bytes_sent',
  'connection',
  'hostname',
  'msec',
  'nginx_version',
  'pid',
  'protocol',
  // ingress-nginx's own: the TCP/UDP service's upstream name (renderStream.ts defines it for every server).
  'proxy_upstream_name',
  'proxy_protocol_addr',
  'proxy_protocol_port',
  'proxy_protocol_server_addr',
  'proxy_protocol_server_port',
  'realip_remote_addr',
  'realip_remote_port',
  'remote_addr',
  'remote_port',
  'server_addr',
  'server_port',
  'session_time',
  'status',
  'time_iso8601',
  'time_local',
  'upstream_addr',
  'upstream_bytes_received',
  'upstream_bytes_sent',
  'upstream_connect_time',
  'upstream_first_byte_time',
  'upstream_session_time',
]);

const isStreamVariable = (name: string): boolean => {
  const lower = name.toLowerCase();
  return STREAM_VARIABLES.has(lower) || lower.startsWith('ssl_');
};

export const LOGGING_SPECS: SpecTable<LoggingSettings> = {
  accessLogPath: { key: 'access-log-path', parse: unlessEmpty(parseLogFilePath) },
  httpAccessLogPath: { key: 'http-access-log-path', parse: unlessEmpty(parseLogFilePath) },
  streamAccessLogPath: { key: 'stream-access-log-path', parse: unlessEmpty(parseLogFilePath) },
  logFormatStream: { key: 'log-format-stream', parse: logFormatParser(isStreamVariable) },
  disableStreamAccessLog: { key: 'disable-stream-access-log', parse: parseBoolean },
  errorLogPath: { key: 'error-log-path', parse: unlessEmpty(parseErrorLogPath) },
  accessLogParams: { key: 'access-log-params', parse: parseAccessLogParameters },
  logFormatEscapeNone: { key: 'log-format-escape-none', parse: parseBoolean },
  skipAccessLogUrls: { key: 'skip-access-log-urls', parse: listParser(',', parseRequestTarget, 'request targets') },
  enableAccessLogForDefaultBackend: { key: 'enable-access-log-for-default-backend', parse: parseBoolean },
  enableSyslog: { key: 'enable-syslog', parse: parseBoolean },
  syslogHost: { key: 'syslog-host', parse: unlessEmpty(parseSyslogHost) },
  syslogPort: { key: 'syslog-port', parse: integerParser(1, 65535) },
};

/** enable-syslog without syslog-host would send to no one (nginx refuses `syslog:server=:514`): the logs stay in their files. */
export function syslogProblems(settings: LoggingSettings): string[] {
  if (!settings.enableSyslog || settings.syslogHost !== undefined) return [];
  settings.enableSyslog = false;
  return ['ConfigMap key enable-syslog: "true" needs syslog-host; logging to the files instead'];
}
