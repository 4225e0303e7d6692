// The global ConfigMap (`--configmap`) → GlobalSettings. Values are validated
// although the ConfigMap is admin-owned: they end up in nginx.conf, so no value
// may carry control characters, and free-form values admit only what their
// directive needs; sizes, times and counts are bounded to what lets nginx load
// and serve (a 0 s client timeout drops every connection, 100000 workers fork
// without end). An invalid value keeps the default and is reported.
import { parseErrorCodes } from '../annotations/errorPageAnnotations.js';
import { parseResponseHeaderName } from '../annotations/customHeadersAnnotations.js';
import { parseNextUpstreamConditions } from '../annotations/nextUpstreamAnnotations.js';
import {
  parseBufferSize,
  parseBuffersNumber,
  parseBusyBuffersSize,
  parseHttpVersion,
  parseOnOff,
  parseTempFileSize,
  proxyBufferProblem,
} from '../annotations/proxyTuningAnnotations.js';
import { RISK_LEVELS } from '../annotations/riskLevels.js';
import { DEFAULT_SETTINGS, type CoreSettings, type GlobalSettings } from './globalSettings.js';
import { GLOBAL_AUTH_SPECS } from './keys/globalAuthSettings.js';
import { HEADER_SPECS } from './keys/headerSettings.js';
import { TLS_SPECS } from './keys/tlsSettings.js';
import { LOGGING_SPECS, syslogProblems } from './keys/loggingSettings.js';
import { CLIENT_ADDRESS_SPECS } from './keys/clientAddressSettings.js';
import { COMPRESSION_SPECS } from './keys/compressionSettings.js';
import { HTTP_TUNING_SPECS } from './keys/httpTuningSettings.js';
import { LUA_SHARED_DICT_SPECS } from './keys/luaSharedDictSettings.js';
import { WORKER_SPECS } from './keys/workerSettings.js';
import { GLOBAL_ACCESS_SPECS } from './keys/globalAccessSettings.js';
import { GLOBAL_SNIPPET_SPECS, withoutRefusedSnippets } from './keys/globalSnippetSettings.js';
import { RESPONSE_REWRITE_SPECS } from './keys/responseRewriteSettings.js';
import { GEOIP2_SPECS } from './keys/geoip2Settings.js';
import { STREAM_PROXY_SPECS } from './keys/streamProxySettings.js';
import { parseLoadBalanceAlgorithm } from './loadBalanceAlgorithm.js';
import { parseLogFormat } from './logFormatVariables.js';
import { parseLimitStatusCode, parseLimitZoneKey } from './limitSettings.js';
import { MAX_UPSTREAM_KEEPALIVE_CONNECTIONS } from './nginxLimits.js';
import type { SettingsEnvironment, SpecTable } from './settingSpec.js';
import { parseSslCiphers } from './sslCiphers.js';
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
  parsePositiveSeconds,
  parseSeconds,
  parseUrlPath,
  quoteValue,
  type ParsedValue,
  type ValueParser,
} from './valueSyntax.js';

export interface GlobalSettingsParseResult {
  settings: GlobalSettings;
  /** One message per refused value, naming the key and the value. */
  problems: string[];
  /** Keys Portico does not implement (yet), sorted; the caller logs each once. */
  unknownKeys: string[];
}

const REDIRECT_CODES = [301, 302, 307, 308] as const;

const parseRedirectCode: ValueParser<GlobalSettings['httpRedirectCode']> = (text) => {
  const code = REDIRECT_CODES.find((candidate) => String(candidate) === text);
  return code === undefined ? { ok: false, expected: `one of ${REDIRECT_CODES.join(', ')}` } : { ok: true, value: code };
};

export type { SettingsEnvironment } from './settingSpec.js';

/**
 * Workers per CPU beyond which worker-processes is refused: nginx forks every
 * worker at each reload (100000 forked without end, 8 GB in 45 s), and more than
 * one worker per CPU only adds memory and context switches; 4 leaves room for
 * workers that block on disk.
 */
export const MAX_WORKERS_PER_CPU = 4;

function parseWorkerProcesses(text: string, environment: SettingsEnvironment): ParsedValue<number | 'auto'> {
  if (text === 'auto') return { ok: true, value: 'auto' };
  const max = MAX_WORKERS_PER_CPU * Math.max(1, Math.floor(environment.cpus));
  const parsed = integerParser(1, max)(text);
  return parsed.ok ? parsed : { ok: false, expected: `"auto" or ${parsed.expected} (${MAX_WORKERS_PER_CPU} per CPU)` };
}

/**
 * max-worker-connections: 0 keeps Portico's 16384; otherwise from nginx's own
 * default 512 (a handful leave none for clients once the listening sockets,
 * status server and upstream connections have theirs) to 2^20, the usual
 * open-file ceiling (fs.nr_open), past which connections cannot be opened anyway
 * while nginx still allocates ~260 bytes of each at worker start (273 MB at 2^20).
 */
const MIN_WORKER_CONNECTIONS = 512;
const MAX_WORKER_CONNECTIONS = 2 ** 20;

const parseWorkerConnections: ValueParser<number> = (text) => {
  if (text === '0') return { ok: true, value: 0 };
  const parsed = integerParser(MIN_WORKER_CONNECTIONS, MAX_WORKER_CONNECTIONS)(text);
  return parsed.ok ? parsed : { ok: false, expected: `0 (the default) or ${parsed.expected}` };
};

/** The protocol names nginx's ssl_protocols accepts. */
export const parseSslProtocols: ValueParser<string[]> = (text) => {
  const parsed = listParser(' ', optionParser(['SSLv2', 'SSLv3', 'TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']), 'protocols')(text);
  return parsed.ok && parsed.value.length === 0 ? { ok: false, expected: 'at least one protocol, such as TLSv1.3' } : parsed;
};

const CORE_SPECS: SpecTable<CoreSettings> = {
  allowSnippetAnnotations: { key: 'allow-snippet-annotations', parse: parseBoolean },
  allowCrossNamespaceResources: { key: 'allow-cross-namespace-resources', parse: parseBoolean },
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
  proxyConnectTimeout: { key: 'proxy-connect-timeout', parse: parsePositiveSeconds },
  proxyReadTimeout: { key: 'proxy-read-timeout', parse: parsePositiveSeconds },
  proxySendTimeout: { key: 'proxy-send-timeout', parse: parsePositiveSeconds },
  proxyBuffering: { key: 'proxy-buffering', parse: optionParser(['on', 'off']) },
  proxyBufferSize: { key: 'proxy-buffer-size', parse: parseBufferSize },
  proxyBuffersNumber: { key: 'proxy-buffers-number', parse: parseBuffersNumber },
  proxyBusyBuffersSize: { key: 'proxy-busy-buffers-size', parse: parseBusyBuffersSize },
  proxyMaxTempFileSize: { key: 'proxy-max-temp-file-size', parse: parseTempFileSize },
  proxyRequestBuffering: { key: 'proxy-request-buffering', parse: parseOnOff },
  proxyHttpVersion: { key: 'proxy-http-version', parse: parseHttpVersion },
  clientBodyBufferSize: { key: 'client-body-buffer-size', parse: parseBufferSize },
  proxyNextUpstream: { key: 'proxy-next-upstream', parse: parseNextUpstreamConditions },
  proxyNextUpstreamTimeout: { key: 'proxy-next-upstream-timeout', parse: parseSeconds },
  proxyNextUpstreamTries: { key: 'proxy-next-upstream-tries', parse: parseNonNegativeInteger },
  retryNonIdempotent: { key: 'retry-non-idempotent', parse: parseBoolean },
  serviceUpstream: { key: 'service-upstream', parse: parseBoolean },
  clientHeaderTimeout: { key: 'client-header-timeout', parse: parsePositiveSeconds },
  clientBodyTimeout: { key: 'client-body-timeout', parse: parsePositiveSeconds },
  // 0 turns client keep-alive off, as in nginx.
  keepAlive: { key: 'keep-alive', parse: parseSeconds },
  keepAliveRequests: { key: 'keep-alive-requests', parse: parseNonNegativeInteger },
  loadBalance: { key: 'load-balance', parse: parseLoadBalanceAlgorithm },
  upstreamKeepaliveConnections: { key: 'upstream-keepalive-connections', parse: integerParser(0, MAX_UPSTREAM_KEEPALIVE_CONNECTIONS) },
  upstreamKeepaliveTime: { key: 'upstream-keepalive-time', parse: parseNginxTime },
  upstreamKeepaliveTimeout: { key: 'upstream-keepalive-timeout', parse: parseSeconds },
  upstreamKeepaliveRequests: { key: 'upstream-keepalive-requests', parse: parseNonNegativeInteger },
  sslProtocols: { key: 'ssl-protocols', parse: parseSslProtocols },
  sslCiphers: { key: 'ssl-ciphers', parse: parseSslCiphers },
  sslRedirect: { key: 'ssl-redirect', parse: parseBoolean },
  forceSslRedirect: { key: 'force-ssl-redirect', parse: parseBoolean },
  httpRedirectCode: { key: 'http-redirect-code', parse: parseRedirectCode },
  noTlsRedirectLocations: { key: 'no-tls-redirect-locations', parse: listParser(',', parseUrlPath, 'paths') },
  relativeRedirects: { key: 'relative-redirects', parse: parseBoolean },
  hsts: { key: 'hsts', parse: parseBoolean },
  hstsMaxAge: { key: 'hsts-max-age', parse: parseNonNegativeInteger },
  hstsIncludeSubdomains: { key: 'hsts-include-subdomains', parse: parseBoolean },
  hstsPreload: { key: 'hsts-preload', parse: parseBoolean },
  useHttp2: { key: 'use-http2', parse: parseBoolean },
  strictValidatePathType: { key: 'strict-validate-path-type', parse: parseBoolean },
  workerProcesses: { key: 'worker-processes', parse: parseWorkerProcesses },
  workerShutdownTimeout: { key: 'worker-shutdown-timeout', parse: parseNginxTime },
  maxWorkerConnections: { key: 'max-worker-connections', parse: parseWorkerConnections },
  logFormatUpstream: { key: 'log-format-upstream', parse: parseLogFormat },
  logFormatEscapeJson: { key: 'log-format-escape-json', parse: parseBoolean },
  disableAccessLog: { key: 'disable-access-log', parse: parseBoolean },
  errorLogLevel: {
    key: 'error-log-level',
    parse: optionParser(['debug', 'info', 'notice', 'warn', 'error', 'crit', 'alert', 'emerg']),
  },
  limitReqStatusCode: { key: 'limit-req-status-code', parse: parseLimitStatusCode },
  limitConnStatusCode: { key: 'limit-conn-status-code', parse: parseLimitStatusCode },
  limitConnZoneVariable: { key: 'limit-conn-zone-variable', parse: parseLimitZoneKey },
  customHttpErrors: { key: 'custom-http-errors', parse: parseErrorCodes },
  limitRate: { key: 'limit-rate', parse: parseNonNegativeInteger },
  limitRateAfter: { key: 'limit-rate-after', parse: parseNonNegativeInteger },
  enableModsecurity: { key: 'enable-modsecurity', parse: parseBoolean },
  enableOwaspModsecurityCrs: { key: 'enable-owasp-modsecurity-crs', parse: parseBoolean },
  globalAllowedResponseHeaders: { key: 'global-allowed-response-headers', parse: listParser(',', parseResponseHeaderName, 'header names') },
};

const SETTING_SPECS: SpecTable<GlobalSettings> = {
  ...CORE_SPECS,
  ...GLOBAL_AUTH_SPECS,
  ...HEADER_SPECS,
  ...TLS_SPECS,
  ...LOGGING_SPECS,
  ...CLIENT_ADDRESS_SPECS,
  ...COMPRESSION_SPECS,
  ...HTTP_TUNING_SPECS,
  ...WORKER_SPECS,
  ...LUA_SHARED_DICT_SPECS,
  ...GLOBAL_ACCESS_SPECS,
  ...GLOBAL_SNIPPET_SPECS,
  ...RESPONSE_REWRITE_SPECS,
  ...GEOIP2_SPECS,
  ...STREAM_PROXY_SPECS,
};

/** The implemented ConfigMap keys, each with the setting it fills (docs/compatibility.md lists them). */
export const FIELD_BY_KEY: ReadonlyMap<string, keyof GlobalSettings> = new Map(
  (Object.keys(SETTING_SPECS) as (keyof GlobalSettings)[]).map((field) => [SETTING_SPECS[field].key, field]),
);

export function parseGlobalSettings(data: Record<string, string> | undefined, environment: SettingsEnvironment): GlobalSettingsParseResult {
  const settings: GlobalSettings = { ...DEFAULT_SETTINGS };
  const problems: string[] = [];
  const unknownKeys: string[] = [];
  for (const [key, value] of Object.entries(data ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const field = FIELD_BY_KEY.get(key);
    if (field === undefined) {
      unknownKeys.push(key);
      continue;
    }
    const problem = applySetting(settings, field, value, environment);
    if (problem !== undefined) problems.push(`ConfigMap key ${key}: ${problem}; keeping the default`);
  }
  problems.push(...keepAcceptedProxyBuffers(settings));
  problems.push(...syslogProblems(settings));
  problems.push(...withoutRefusedSnippets(settings));
  return { settings, problems, unknownKeys };
}

/** Sets `field` from `text`, or returns why it cannot. */
function applySetting<K extends keyof GlobalSettings>(
  settings: GlobalSettings,
  field: K,
  text: string,
  environment: SettingsEnvironment,
): string | undefined {
  const spec = SETTING_SPECS[field];
  const controlCharacter = describeControlCharacter(spec.multiLine ? text.replace(/\r?\n|\t/g, ' ') : text);
  if (controlCharacter !== undefined) return `the value contains ${controlCharacter}`;
  const parsed = spec.parse(text.trim(), environment);
  if (!parsed.ok) return `invalid value ${quoteValue(text)}; expected ${parsed.expected}`;
  settings[field] = parsed.value;
  return undefined;
}

/** Buffer sizes valid one by one that nginx refuses together go back to the defaults, all four (proxyTuningAnnotations.ts). */
function keepAcceptedProxyBuffers(settings: GlobalSettings): string[] {
  const problem = proxyBufferProblem({
    bufferSize: settings.proxyBufferSize,
    buffersNumber: settings.proxyBuffersNumber,
    busyBuffersSize: settings.proxyBusyBuffersSize,
    maxTempFileSize: settings.proxyMaxTempFileSize,
  });
  if (problem === undefined) return [];
  settings.proxyBufferSize = DEFAULT_SETTINGS.proxyBufferSize;
  settings.proxyBuffersNumber = DEFAULT_SETTINGS.proxyBuffersNumber;
  settings.proxyBusyBuffersSize = DEFAULT_SETTINGS.proxyBusyBuffersSize;
  settings.proxyMaxTempFileSize = DEFAULT_SETTINGS.proxyMaxTempFileSize;
  return [
    `ConfigMap keys proxy-buffer-size, proxy-buffers-number, proxy-busy-buffers-size, proxy-max-temp-file-size: nginx would refuse them together (${problem}); keeping the defaults`,
  ];
}
