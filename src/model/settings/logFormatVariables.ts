// log-format-upstream: which variables a log format may name. nginx refuses a
// log_format naming a variable it does not have (`unknown "x" variable`, also
// for `$1`), and then nginx -t fails and no later configuration is loaded, so
// the model checks the names against the ones nginx 1.22 (Debian's build) and
// Portico's nginx.conf define. test/dataplane/nginx/render/boundaryValues.test.ts
// renders a log format naming every one of them and runs the real nginx -t on it.
import { quoteValue, type ValueParser } from './valueSyntax.js';

/** nginx 1.22's variables in Debian's build (core, upstream, proxy, SSL, HTTP/2, realip, gzip, limits, fastcgi, ssi, userid, referer, stub_status, browser, secure_link). */
export const NGINX_VARIABLES: readonly string[] = [
  'ancient_browser',
  'args',
  'binary_remote_addr',
  'body_bytes_sent',
  'bytes_sent',
  'connection',
  'connection_requests',
  'connection_time',
  'connections_active',
  'connections_reading',
  'connections_waiting',
  'connections_writing',
  'content_length',
  'content_type',
  'date_gmt',
  'date_local',
  'document_root',
  'document_uri',
  'fastcgi_path_info',
  'fastcgi_script_name',
  'gzip_ratio',
  'host',
  'hostname',
  'http2',
  'https',
  'invalid_referer',
  'is_args',
  'limit_conn_status',
  'limit_rate',
  'limit_req_status',
  'modern_browser',
  'msec',
  'msie',
  'nginx_version',
  'pid',
  'pipe',
  'proxy_add_x_forwarded_for',
  'proxy_host',
  'proxy_port',
  'proxy_protocol_addr',
  'proxy_protocol_port',
  'proxy_protocol_server_addr',
  'proxy_protocol_server_port',
  'query_string',
  'realip_remote_addr',
  'realip_remote_port',
  'realpath_root',
  'remote_addr',
  'remote_port',
  'remote_user',
  'request',
  'request_body',
  'request_body_file',
  'request_completion',
  'request_filename',
  'request_id',
  'request_length',
  'request_method',
  'request_time',
  'request_uri',
  'scheme',
  'secure_link',
  'secure_link_expires',
  'server_addr',
  'server_name',
  'server_port',
  'server_protocol',
  'ssl_alpn_protocol',
  'ssl_cipher',
  'ssl_ciphers',
  'ssl_client_cert',
  'ssl_client_escaped_cert',
  'ssl_client_fingerprint',
  'ssl_client_i_dn',
  'ssl_client_i_dn_legacy',
  'ssl_client_raw_cert',
  'ssl_client_s_dn',
  'ssl_client_s_dn_legacy',
  'ssl_client_serial',
  'ssl_client_v_end',
  'ssl_client_v_remain',
  'ssl_client_v_start',
  'ssl_client_verify',
  'ssl_curves',
  'ssl_early_data',
  'ssl_protocol',
  'ssl_server_name',
  'ssl_session_id',
  'ssl_session_reused',
  'status',
  'tcpinfo_rcv_space',
  'tcpinfo_rtt',
  'tcpinfo_rttvar',
  'tcpinfo_snd_cwnd',
  'time_iso8601',
  'time_local',
  'uid_got',
  'uid_reset',
  'uid_set',
  'upstream_addr',
  'upstream_bytes_received',
  'upstream_bytes_sent',
  'upstream_cache_status',
  'upstream_connect_time',
  'upstream_header_time',
  'upstream_response_length',
  'upstream_response_time',
  'upstream_status',
  'uri',
];

/** nginx's variable families: a request header, response header or trailer, cookie or query argument by name. */
export const NGINX_VARIABLE_PREFIXES: readonly string[] = [
  'arg_',
  'cookie_',
  'http_',
  'sent_http_',
  'sent_trailer_',
  'upstream_cookie_',
  'upstream_http_',
  'upstream_trailer_',
];

/**
 * What Portico's nginx.conf defines (renderHttp.ts maps, variables.ts `set`s), with
 * ingress-nginx's names where it has them, so its log formats keep working.
 */
export const PORTICO_VARIABLES: readonly string[] = [
  'best_http_host',
  'connection_upgrade',
  'ingress_name',
  'location_path',
  'namespace',
  'pass_access_scheme',
  'pass_server_port',
  'proxy_alternative_upstream_name',
  'proxy_upstream_name',
  'redirect_host',
  'req_id',
  'service_name',
  'service_port',
  'this_host',
];

const KNOWN = new Set([...NGINX_VARIABLES, ...PORTICO_VARIABLES]);

/** Whether nginx.conf has `$name` (names are case-insensitive to nginx). */
export function isKnownLogVariable(name: string): boolean {
  const lower = name.toLowerCase();
  return KNOWN.has(lower) || NGINX_VARIABLE_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/**
 * Variables and double quotes are what a log format is made of (the default and
 * every JSON format use both); the renderer quotes the whole string. A single
 * quote or a backslash would be string syntax to nginx, a `$` that does not
 * start a variable reference (`$name`, `${name}`) would fail the reload, and so
 * would a variable nginx.conf does not define.
 */
export const parseLogFormat: ValueParser<string> = logFormatParser(isKnownLogVariable);

/** The renderer's longest argument (MAX_TOKEN_BYTES in dataplane/nginx/render/arguments.ts; nginx's own limit is 4096). */
const MAX_LOG_FORMAT_TOKEN_BYTES = 4000;

/** A log format parser for a context whose variables are those `isKnown` accepts (the http block's, or the stream block's). */
export function logFormatParser(isKnown: (name: string) => boolean): ValueParser<string> {
  return (text) => {
    // Quoted, with `"` and line breaks escaped, it must fit one argument (the renderer refuses a longer one).
    if (Buffer.byteLength(text) + (text.match(/["\n\r\t]/g)?.length ?? 0) + 2 > MAX_LOG_FORMAT_TOKEN_BYTES) {
      return { ok: false, expected: `an nginx log format of at most ${MAX_LOG_FORMAT_TOKEN_BYTES - 2} bytes once quoted` };
    }
    const syntax = /^(?:[^$'\\]|\$(?:[A-Za-z0-9_]+|\{[A-Za-z0-9_]+\}))+$/;
    if (!syntax.test(text)) {
      return {
        ok: false,
        expected: 'an nginx log format: no single quotes or backslashes, and "$" only in variable references such as $status or ${host}',
      };
    }
    for (const [, bare, braced] of text.matchAll(/\$(?:([A-Za-z0-9_]+)|\{([A-Za-z0-9_]+)\})/g)) {
      const name = bare ?? braced ?? '';
      if (!isKnown(name)) {
        return { ok: false, expected: `an nginx log format naming only variables nginx.conf has; ${quoteValue(`$${name}`)} is not one` };
      }
    }
    return { ok: true, value: text };
  };
}
