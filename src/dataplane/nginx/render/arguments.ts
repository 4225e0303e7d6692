// Directive arguments: the only way a value becomes bytes in nginx.conf.
// Every constructor here either quotes and escapes its input, or validates it
// against a pattern that cannot contain nginx syntax, so no string (least of
// all one from a Kubernetes object) can end a token, a directive or a block.
import { isIP } from 'node:net';
import { MAX_TIMER_SECONDS, nginxSizeBytes, nginxTimeMs } from '../../../model/settings/nginxLimits.js';
import { MAX_ACCESS_LOG_BUFFER_BYTES, type AccessLogParameter } from '../../../model/settings/accessLogParameters.js';
import { memoizedArgument } from './memoizedArgument.js';

const issuingKey: unique symbol = Symbol('Argument');

/** One argument of a directive. Only the constructors in this module create them. */
export class Argument {
  /**
   * @param token what is written to the file.
   * @param word what nginx's parser yields for the token (quotes removed, escapes resolved).
   */
  constructor(
    key: typeof issuingKey,
    readonly token: string,
    readonly word: string,
  ) {
    if (key !== issuingKey) throw new Error('Arguments are created by the functions of arguments.ts only');
  }
}

/**
 * nginx reads a configuration token into a 4096-byte buffer and fails with
 * "too long parameter" beyond it; refuse early and clearly, with margin.
 */
export const MAX_TOKEN_BYTES = 4000;

/** A value for an error message: JSON-quoted (so control characters show) and cut short. */
export function describeValue(value: unknown): string {
  const json = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return json.length > 80 ? `${json.slice(0, 80)}...` : json;
}

function issue(token: string, word: string): Argument {
  // A UTF-16 unit is at most 3 bytes of UTF-8: a short token needs no count.
  const bytes = token.length * 3 <= MAX_TOKEN_BYTES ? 0 : Buffer.byteLength(token);
  if (bytes > MAX_TOKEN_BYTES) {
    throw new Error(`nginx argument too long: ${bytes} bytes (at most ${MAX_TOKEN_BYTES}): ${describeValue(word)}`);
  }
  return new Argument(issuingKey, token, word);
}

// Inside double quotes nginx resolves exactly \" \' \\ \n \r \t and keeps any
// other backslash as is; nothing else in a quoted token is special to its parser.
const QUOTED_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function quoted(word: string): Argument {
  // A NUL would silently truncate the value wherever nginx uses it as a C string.
  if (word.includes('\0')) throw new Error(`nginx argument contains a NUL character: ${describeValue(word)}`);
  return issue(`"${word.replace(/[\\"\n\r\t]/g, (c) => QUOTED_ESCAPES[c] ?? c)}"`, word);
}

/** Any string, taken literally, for directives that do not interpolate variables (location, server_name, rewrite regex...). */
export function literal(value: string): Argument {
  return quoted(value);
}

/**
 * Any string, taken literally, for directives that DO interpolate variables
 * (set, proxy_set_header, add_header, proxy_pass...). nginx has no escape for
 * `$`, so it becomes `${dollar}`, a variable defined once as "$" (DOLLAR_VARIABLE).
 */
export function text(value: string): Argument {
  return quoted(value.replaceAll('$', '${dollar}'));
}

/** The variable `text()` relies on; the http block must define it as "$" with `geo`. */
export const DOLLAR_VARIABLE = '$dollar';

// nginx's script compiler: `$` then a name of [A-Za-z0-9_], or the name in braces.
const VARIABLE_REFERENCE = /\$(?:\{[A-Za-z0-9_]+\}|[A-Za-z0-9_]+)/y;

/**
 * An admin- or Portico-authored string whose `$variables` are meant (log_format,
 * Portico's own header values). Each `$` must start a well-formed reference,
 * else nginx would refuse the whole configuration.
 */
export function template(value: string): Argument {
  for (let at = value.indexOf('$'); at !== -1; at = value.indexOf('$', at + 1)) {
    VARIABLE_REFERENCE.lastIndex = at;
    if (!VARIABLE_REFERENCE.test(value)) {
      throw new Error(`malformed nginx variable reference at offset ${at} of ${describeValue(value)}`);
    }
  }
  return quoted(value);
}

/**
 * A user-authored replacement (rewrite-target) where only the regex captures
 * `$1`..`$9` are meant; every other `$` is taken literally, so a user can
 * neither read other variables nor name an unknown one and break the reload
 * (`${1}` too: nginx reads it as a variable named "1").
 */
export function captureTemplate(value: string): Argument {
  return quoted(value.replace(/\$(?![1-9])/g, '${dollar}'));
}

/**
 * A file path from Portico's runtime context. Refuses `$` (ssl_certificate and
 * access_log would interpolate it) and glob characters (include would expand them).
 */
export function filePath(value: string): Argument {
  return quoted(checkedFilePath(value));
}

/** `unix:<path>`: a unix socket, for `listen` and for the address a balancer connects to. */
export function unixSocket(path: string): Argument {
  return quoted(`unix:${checkedFilePath(path)}`);
}

function checkedFilePath(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (value === '' || /[$*?[\x00-\x1f\x7f]/.test(value)) throw new Error(`unsupported file path for nginx: ${describeValue(value)}`);
  return value;
}

/**
 * lua_package_path for the Lua modules under `directory`: `<directory>/?.lua;;`
 * (`?` is the module's path, `;;` appends ngx_lua's default path). The directory
 * is absolute (nginx does not resolve this path against its prefix), passes the
 * checks of filePath() (ngx_lua expands `$prefix` here), and holds no `;`, Lua's separator.
 */
export function luaPackagePath(directory: string): Argument {
  const checked = checkedFilePath(directory);
  if (!checked.startsWith('/') || checked.includes(';')) throw new Error(`unsupported Lua module directory: ${describeValue(directory)}`);
  return quoted(`${checked.replace(/\/+$/, '')}/?.lua;;`);
}

/** Portico's fixed bare words: a closed set, written unquoted. */
const KEYWORDS = [
  'on',
  'off',
  // ssl_verify_client's other modes (auth-tls-verify-client).
  'optional',
  'optional_no_ca',
  'auto',
  'all',
  'any',
  'default',
  'always',
  'break',
  'upgrade',
  'close',
  '=',
  '~*',
  'default_server',
  // use-proxy-protocol and reuse-port on listen lines (renderListen.ts); real_ip_header proxy_protocol, and a PROXY port 443's scheme (renderClientAddress.ts).
  'proxy_protocol',
  'reuseport',
  // A TCP/UDP service's listen line (renderStreamServices.ts).
  'udp',
  'https',
  'ssl',
  'http2',
  'timeout',
  // The Lua modules' shared dict, and the placeholder server of their balancer's upstream (never connected to).
  'portico_configuration',
  'portico_balancer_ewma',
  '0.0.0.1',
  // The catch-all server's location for hosts nginx.conf does not have yet (lua/portico/routes.lua).
  '@portico_pending',
  '@portico_pending_https_redirect',
  '@portico_pending_not_found',
  'upstreaminfo',
  // The stream block's log format (renderStream.ts), ingress-nginx's name.
  'log_stream',
  // External auth's response cache (renderExternalAuth.ts), ingress-nginx's sizes.
  'levels=1:2',
  'keys_zone=portico_auth_cache:10m',
  'max_size=128m',
  'inactive=30m',
  'use_temp_path=off',
  'portico_auth_cache',
  'escape=json',
  'escape=none',
  // aio: files are read by nginx's thread pool (renderHttpTuning.ts).
  'threads',
  'http',
  '1.1',
  // proxy-http-version, and proxy_next_upstream's conditions (nextUpstreamAnnotations.ts).
  '1.0',
  'invalid_header',
  'http_500',
  'http_502',
  'http_503',
  'http_504',
  'http_403',
  'http_404',
  'http_429',
  'non_idempotent',
  'SSLv2',
  'SSLv3',
  'TLSv1',
  'TLSv1.1',
  'TLSv1.2',
  'TLSv1.3',
  // limit_req: a burst is served at once, not spread over time.
  'nodelay',
  // fastcgi_param: a parameter left out when its value is empty (renderFastCgi.ts).
  'if_not_empty',
  // app-root's `if ($uri = /)` (renderRedirects.ts).
  '/',
  'debug',
  'info',
  'notice',
  'warn',
  'error',
  'crit',
  'alert',
  'emerg',
] as const;

export type Keyword = (typeof KEYWORDS)[number];

const KEYWORD_SET: ReadonlySet<string> = new Set(KEYWORDS);

/** A bare word produced only after a validator accepted it; the validators below never accept nginx syntax. */
function bare(token: string): Argument {
  return issue(token, token);
}

function refuse(what: string, value: unknown): never {
  throw new Error(`invalid ${what} for nginx: ${describeValue(value)}`);
}

/** Unquoted tokens, each from a closed set or a pattern with no nginx syntax in it. */
export const raw = {
  keyword: memoizedArgument((word: Keyword): Argument => (KEYWORD_SET.has(word) ? bare(word) : refuse('keyword', word))),

  /** A non-negative integer (counts, status codes, ports). */
  integer(value: number): Argument {
    return Number.isSafeInteger(value) && value >= 0 ? bare(String(value)) : refuse('integer', value);
  },

  /** Whole seconds as an nginx time (`60s`), within what a timer holds (nginxLimits.ts). */
  seconds(value: number): Argument {
    return Number.isSafeInteger(value) && value >= 0 && value <= MAX_TIMER_SECONDS ? bare(`${value}s`) : refuse('number of seconds', value);
  },

  /** An nginx size: `0`, `8k`, `1m`, `2G`, at most 2^63 - 1 bytes. */
  size(value: string): Argument {
    return nginxSizeBytes(value) !== undefined ? bare(value) : refuse('size', value);
  },

  /** A single-unit nginx time for a millisecond directive: `240s`, `1h`, `500ms` (no `M` or `y`, which nginx refuses there). */
  time(value: string): Argument {
    return nginxTimeMs(value) !== undefined ? bare(value) : refuse('time', value);
  },

  /** A CPU mask of worker_cpu_affinity: a bit per CPU, at least one set, up to CPU_SETSIZE (1024) bits. */
  cpuMask(mask: string): Argument {
    return /^[01]{1,1024}$/.test(mask) && mask.includes('1') ? bare(mask) : refuse('CPU mask', mask);
  },

  /** A variable name of Portico's own (`$proxy_upstream_name`). */
  variable: memoizedArgument((name: string): Argument => (/^\$[a-z_][a-z0-9_]*$/.test(name) ? bare(name) : refuse('variable name', name))),

  /** An HTTP header name (RFC 9110 token characters minus the ones nginx treats specially). */
  headerName: memoizedArgument((name: string): Argument =>
    /^[A-Za-z0-9!%&*+.^_`|~-]{1,256}$/.test(name) ? bare(name) : refuse('header name', name),
  ),

  /** An IPv4 or IPv6 address with an optional prefix length, for allow/deny. */
  cidr(value: string): Argument {
    const [address = '', prefix, extra] = value.split('/');
    const family = isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    return family !== 0 && prefixOk && extra === undefined ? bare(value) : refuse('CIDR', value);
  },

  /** A shared memory zone's name (limit_conn): no `:`, which would end the name in `zone=<name>:<size>`. */
  zoneName(name: string): Argument {
    return ZONE_NAME.test(name) ? bare(name) : refuse('zone name', name);
  },

  /** `zone=<name>:<size>`, the zone parameter of limit_req_zone / limit_conn_zone, and of limit_req (without size). */
  zone(name: string, size?: string): Argument {
    const sized = size === undefined ? '' : `:${raw.size(size).token}`;
    return bare(`zone=${raw.zoneName(name).token}${sized}`);
  },

  /** `rate=<count>r/s` or `rate=<count>r/m` (limit_req_zone). */
  requestRate(count: number, per: 's' | 'm'): Argument {
    return Number.isSafeInteger(count) && count > 0 ? bare(`rate=${count}r/${per}`) : refuse('request rate', count);
  },

  /** `burst=<count>` (limit_req). */
  burst(count: number): Argument {
    return bare(`burst=${raw.integer(count).token}`);
  },

  /** An HTTP method of auth-method's closed set. */
  httpMethod(method: string): Argument {
    return /^(GET|HEAD|POST|PUT|PATCH|DELETE|CONNECT|OPTIONS|TRACE)$/.test(method) ? bare(method) : refuse('HTTP method', method);
  },

  /** A named location (`@name`) of Portico's own: letters, digits and `_`. */
  namedLocation(name: string): Argument {
    return /^@[a-z0-9_]{1,128}$/.test(name) ? bare(name) : refuse('named location', name);
  },

  /** An upstream `server`: `<DNS name or IP>:<port>` (IPv6 in brackets). */
  hostPort(host: string, port: number): Argument {
    const address = isDnsName(host) ? host : (ipForNginx(host) ?? refuse('host', host));
    return bare(`${address}:${portNumber(port)}`);
  },

  /** The name of an `upstream` block. */
  upstreamName(name: string): Argument {
    return UPSTREAM_NAME.test(name) ? bare(name) : refuse('upstream name', name);
  },

  /**
   * `<scheme>://<upstream>` for proxy_pass / grpc_pass: no URI part, so the request URI passes unchanged.
   * `$scheme` (backend-protocol AUTO_HTTP): the client's; nginx finds the upstream block by name at run time.
   */
  upstreamUrl(scheme: 'http' | 'https' | 'grpc' | 'grpcs' | '$scheme', upstream: string): Argument {
    return UPSTREAM_NAME.test(upstream) ? bare(`${scheme}://${upstream}`) : refuse('upstream name', upstream);
  },

  /** `syslog:server=<host>:<port>`: access_log and error_log send their lines to a syslog server over UDP (the host as hostPort's). */
  syslogServer(host: string, port: number): Argument {
    return bare(`syslog:server=${raw.hostPort(host, port).token}`);
  },

  /** An access_log parameter after the format (accessLogParameters.ts), or `if=<variable>`: the line is written unless it is "" or "0". */
  accessLogParameter(parameter: AccessLogParameter | { name: 'if'; variable: string }): Argument {
    switch (parameter.name) {
      case 'buffer': {
        const bytes = nginxSizeBytes(parameter.size);
        return bytes !== undefined && bytes >= 1n && bytes <= MAX_ACCESS_LOG_BUFFER_BYTES
          ? bare(`buffer=${parameter.size}`)
          : refuse('access_log buffer', parameter.size);
      }
      case 'flush':
        return nginxTimeMs(parameter.time) ? bare(`flush=${parameter.time}`) : refuse('access_log flush time', parameter.time);
      case 'gzip':
        if (parameter.level === undefined) return bare('gzip');
        return Number.isInteger(parameter.level) && parameter.level >= 1 && parameter.level <= 9
          ? bare(`gzip=${parameter.level}`)
          : refuse('access_log gzip level', parameter.level);
      case 'if':
        return bare(`if=${raw.variable(parameter.variable).token}`);
    }
  },

  /** A `listen` address: the port alone (all addresses), or `<ip>:<port>`. */
  listen(address: string | undefined, port: number): Argument {
    if (address === undefined) return bare(String(portNumber(port)));
    return bare(`${ipForNginx(address) ?? refuse('listen address', address)}:${portNumber(port)}`);
  },
};

const UPSTREAM_NAME = /^[a-zA-Z0-9._-]{1,253}$/;

const ZONE_NAME = /^[a-zA-Z0-9._-]{1,400}$/;

/** A DNS name: dot-separated labels of letters, digits and inner hyphens. */
export function isDnsName(value: string): boolean {
  return DNS_NAME.test(value);
}

const DNS_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function portNumber(port: number): number {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? port : refuse('port', port);
}

/** An IP address as nginx writes it next to a port (IPv6 in brackets), or undefined when it is not an IP. */
function ipForNginx(address: string): string | undefined {
  const unbracketed = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  switch (isIP(unbracketed)) {
    case 4:
      return unbracketed === address ? address : undefined;
    case 6:
      return `[${unbracketed}]`;
    default:
      return undefined;
  }
}

/**
 * The condition of an `if` block comparing one of Portico's variables with a
 * keyword, written as nginx expects: `($variable = value)`.
 */
export function ifEquals(variable: string, value: Keyword): Argument[] {
  const name = raw.variable(variable);
  const expected = raw.keyword(value);
  return [bare(`(${name.token}`), raw.keyword('='), bare(`${expected.token})`)];
}

/**
 * The condition of an `if` block that holds when one of Portico's variables
 * does not match a regex (case-sensitively): `( $variable !~ "regex" )`. nginx
 * compiles the regex as written (no variables), so it is a literal.
 */
export function ifNotMatches(variable: string, regex: string): Argument[] {
  return [bare('('), raw.variable(variable), bare('!~'), literal(regex), bare(')')];
}

/**
 * The condition of an `if` block that holds when a variable matches a regex
 * (case-sensitively; its captures are `$1`...): `( $variable ~ "regex" )`.
 */
export function ifMatches(variable: string, regex: string): Argument[] {
  return [bare('('), raw.variable(variable), bare('~'), literal(regex), bare(')')];
}
