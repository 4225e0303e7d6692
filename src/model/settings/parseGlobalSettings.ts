// The global ConfigMap (`--configmap`) → GlobalSettings. Values are validated
// although the ConfigMap is admin-owned: they end up in nginx.conf, so no value
// may carry control characters, and free-form values admit only what their
// directive needs. An invalid value keeps the default and is reported.
import { RISK_LEVELS } from '../annotations/riskLevels.js';
import { DEFAULT_SETTINGS, type GlobalSettings } from './globalSettings.js';
import { parseLoadBalanceAlgorithm } from './loadBalanceAlgorithm.js';
import {
  describeControlCharacter,
  integerParser,
  listParser,
  optionParser,
  parseAnyText,
  parseBoolean,
  parseHeaderName,
  parseNginxSize,
  parseNginxTime,
  parseNonNegativeInteger,
  parseSeconds,
  parseUrlPath,
  patternParser,
  quoteValue,
  type ValueParser,
} from './valueSyntax.js';

export interface GlobalSettingsParseResult {
  settings: GlobalSettings;
  /** One message per refused value, naming the key and the value. */
  problems: string[];
  /** Keys Portico does not implement (yet), sorted; the caller logs each once. */
  unknownKeys: string[];
}

interface SettingSpec<T> {
  /** The ingress-nginx ConfigMap key. */
  key: string;
  parse: ValueParser<T>;
}

const REDIRECT_CODES = [301, 302, 307, 308] as const;

const parseRedirectCode: ValueParser<GlobalSettings['httpRedirectCode']> = (text) => {
  const code = REDIRECT_CODES.find((candidate) => String(candidate) === text);
  return code === undefined ? { ok: false, expected: `one of ${REDIRECT_CODES.join(', ')}` } : { ok: true, value: code };
};

const parseWorkerCount = integerParser(1, 2 ** 31 - 1);

const parseWorkerProcesses: ValueParser<number | 'auto'> = (text) =>
  text === 'auto' ? { ok: true, value: 'auto' } : parseWorkerCount(text);

/** The protocol names nginx's ssl_protocols accepts. */
const parseSslProtocols: ValueParser<string[]> = (text) => {
  const parsed = listParser(' ', optionParser(['SSLv2', 'SSLv3', 'TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']), 'protocols')(text);
  return parsed.ok && parsed.value.length === 0 ? { ok: false, expected: 'at least one protocol, such as TLSv1.3' } : parsed;
};

/**
 * Variables and double quotes are what a log format is made of (the default and
 * every JSON format use both); the renderer quotes the whole string. A single
 * quote or a backslash would be string syntax to nginx, and a `$` that does not
 * start a variable reference (`$name`, `${name}`) would fail the reload.
 */
const parseLogFormat = patternParser(
  /^(?:[^$'\\]|\$(?:[A-Za-z0-9_]+|\{[A-Za-z0-9_]+\}))+$/,
  'an nginx log format: no single quotes or backslashes, and "$" only in variable references such as $status or ${host}',
);

const SETTING_SPECS: { readonly [K in keyof GlobalSettings]: SettingSpec<GlobalSettings[K]> } = {
  allowSnippetAnnotations: { key: 'allow-snippet-annotations', parse: parseBoolean },
  // Case-insensitive, as ingress-nginx.
  annotationsRiskLevel: { key: 'annotations-risk-level', parse: optionParser(RISK_LEVELS, true) },
  // The words exist to catch injection attempts, so any printable text is a word.
  annotationValueWordBlocklist: { key: 'annotation-value-word-blocklist', parse: listParser(',', parseAnyText, 'words') },
  serverTokens: { key: 'server-tokens', parse: parseBoolean },
  useForwardedHeaders: { key: 'use-forwarded-headers', parse: parseBoolean },
  forwardedForHeader: { key: 'forwarded-for-header', parse: parseHeaderName },
  computeFullForwardedFor: { key: 'compute-full-forwarded-for', parse: parseBoolean },
  generateRequestId: { key: 'generate-request-id', parse: parseBoolean },
  proxyBodySize: { key: 'proxy-body-size', parse: parseNginxSize },
  proxyConnectTimeout: { key: 'proxy-connect-timeout', parse: parseSeconds },
  proxyReadTimeout: { key: 'proxy-read-timeout', parse: parseSeconds },
  proxySendTimeout: { key: 'proxy-send-timeout', parse: parseSeconds },
  proxyBuffering: { key: 'proxy-buffering', parse: optionParser(['on', 'off']) },
  clientHeaderTimeout: { key: 'client-header-timeout', parse: parseSeconds },
  clientBodyTimeout: { key: 'client-body-timeout', parse: parseSeconds },
  keepAlive: { key: 'keep-alive', parse: parseSeconds },
  keepAliveRequests: { key: 'keep-alive-requests', parse: parseNonNegativeInteger },
  loadBalance: { key: 'load-balance', parse: parseLoadBalanceAlgorithm },
  upstreamKeepaliveConnections: { key: 'upstream-keepalive-connections', parse: parseNonNegativeInteger },
  upstreamKeepaliveTime: { key: 'upstream-keepalive-time', parse: parseNginxTime },
  upstreamKeepaliveTimeout: { key: 'upstream-keepalive-timeout', parse: parseSeconds },
  upstreamKeepaliveRequests: { key: 'upstream-keepalive-requests', parse: parseNonNegativeInteger },
  sslProtocols: { key: 'ssl-protocols', parse: parseSslProtocols },
  // OpenSSL cipher-list syntax: names, the separators ":", "," and " ", and the operators "!+-@=".
  sslCiphers: {
    key: 'ssl-ciphers',
    parse: patternParser(/^[A-Za-z0-9!+@=:,._ -]+$/, 'an OpenSSL cipher list (letters, digits and ":, !+-@=._")'),
  },
  sslRedirect: { key: 'ssl-redirect', parse: parseBoolean },
  forceSslRedirect: { key: 'force-ssl-redirect', parse: parseBoolean },
  httpRedirectCode: { key: 'http-redirect-code', parse: parseRedirectCode },
  noTlsRedirectLocations: { key: 'no-tls-redirect-locations', parse: listParser(',', parseUrlPath, 'paths') },
  hsts: { key: 'hsts', parse: parseBoolean },
  hstsMaxAge: { key: 'hsts-max-age', parse: parseNonNegativeInteger },
  hstsIncludeSubdomains: { key: 'hsts-include-subdomains', parse: parseBoolean },
  hstsPreload: { key: 'hsts-preload', parse: parseBoolean },
  useHttp2: { key: 'use-http2', parse: parseBoolean },
  strictValidatePathType: { key: 'strict-validate-path-type', parse: parseBoolean },
  workerProcesses: { key: 'worker-processes', parse: parseWorkerProcesses },
  workerShutdownTimeout: { key: 'worker-shutdown-timeout', parse: parseNginxTime },
  maxWorkerConnections: { key: 'max-worker-connections', parse: parseNonNegativeInteger },
  logFormatUpstream: { key: 'log-format-upstream', parse: parseLogFormat },
  logFormatEscapeJson: { key: 'log-format-escape-json', parse: parseBoolean },
  disableAccessLog: { key: 'disable-access-log', parse: parseBoolean },
  errorLogLevel: {
    key: 'error-log-level',
    parse: optionParser(['debug', 'info', 'notice', 'warn', 'error', 'crit', 'alert', 'emerg']),
  },
};

const FIELD_BY_KEY: ReadonlyMap<string, keyof GlobalSettings> = new Map(
  (Object.keys(SETTING_SPECS) as (keyof GlobalSettings)[]).map((field) => [SETTING_SPECS[field].key, field]),
);

export function parseGlobalSettings(data: Record<string, string> | undefined): GlobalSettingsParseResult {
  const settings: GlobalSettings = { ...DEFAULT_SETTINGS };
  const problems: string[] = [];
  const unknownKeys: string[] = [];
  for (const [key, value] of Object.entries(data ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const field = FIELD_BY_KEY.get(key);
    if (field === undefined) {
      unknownKeys.push(key);
      continue;
    }
    const problem = applySetting(settings, field, value);
    if (problem !== undefined) problems.push(`ConfigMap key ${key}: ${problem}; keeping the default`);
  }
  return { settings, problems, unknownKeys };
}

/** Sets `field` from `text`, or returns why it cannot. */
function applySetting<K extends keyof GlobalSettings>(settings: GlobalSettings, field: K, text: string): string | undefined {
  const controlCharacter = describeControlCharacter(text);
  if (controlCharacter !== undefined) return `the value contains ${controlCharacter}`;
  const parsed = SETTING_SPECS[field].parse(text.trim());
  if (!parsed.ok) return `invalid value ${quoteValue(text)}; expected ${parsed.expected}`;
  settings[field] = parsed.value;
  return undefined;
}
