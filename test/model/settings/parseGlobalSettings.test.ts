import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGlobalSettings as parseIn, type SettingsEnvironment } from '../../../src/model/settings/parseGlobalSettings.js';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { HEADER_DEFAULTS } from '../../../src/model/settings/keys/headerSettings.js';
import { TLS_DEFAULTS } from '../../../src/model/settings/keys/tlsSettings.js';
import { LOGGING_DEFAULTS } from '../../../src/model/settings/keys/loggingSettings.js';
import { CLIENT_ADDRESS_DEFAULTS } from '../../../src/model/settings/keys/clientAddressSettings.js';
import { GLOBAL_ACCESS_DEFAULTS } from '../../../src/model/settings/keys/globalAccessSettings.js';
import { GLOBAL_SNIPPET_DEFAULTS } from '../../../src/model/settings/keys/globalSnippetSettings.js';
import { RESPONSE_REWRITE_DEFAULTS } from '../../../src/model/settings/keys/responseRewriteSettings.js';
import { GEOIP2_DEFAULTS } from '../../../src/model/settings/keys/geoip2Settings.js';
import { STREAM_PROXY_DEFAULTS } from '../../../src/model/settings/keys/streamProxySettings.js';

/** A two-CPU machine (worker-processes up to 8). */
const TWO_CPUS: SettingsEnvironment = { cpus: 2 };
const parseGlobalSettings = (data: Record<string, string> | undefined) => parseIn(data, TWO_CPUS);

test('no ConfigMap, or an empty one: the defaults', () => {
  assert.deepEqual(parseGlobalSettings(undefined), { settings: DEFAULT_SETTINGS, problems: [], unknownKeys: [] });
  assert.deepEqual(parseGlobalSettings({}), { settings: DEFAULT_SETTINGS, problems: [], unknownKeys: [] });
});

test('every field is read from its ingress-nginx key', () => {
  const { settings, problems, unknownKeys } = parseGlobalSettings({
    'allow-snippet-annotations': 'true',
    'allow-cross-namespace-resources': 'true',
    'annotations-risk-level': 'Critical',
    'annotation-value-word-blocklist': 'load_module, _by_lua ,,alias,"',
    'server-tokens': 'true',
    'use-forwarded-headers': 'true',
    'forwarded-for-header': 'X-Real-Client_IP',
    'compute-full-forwarded-for': 'true',
    'generate-request-id': 'false',
    'proxy-body-size': '8m',
    'proxy-connect-timeout': '3',
    'proxy-read-timeout': '120',
    'proxy-send-timeout': '121',
    'proxy-buffering': 'on',
    'proxy-buffer-size': '16k',
    'proxy-buffers-number': '8',
    'proxy-busy-buffers-size': '32k',
    'proxy-max-temp-file-size': '0',
    'proxy-request-buffering': 'off',
    'proxy-http-version': '1.0',
    'client-body-buffer-size': '1m',
    'proxy-next-upstream': 'error timeout http_502',
    'proxy-next-upstream-timeout': '7',
    'proxy-next-upstream-tries': '0',
    'retry-non-idempotent': 'true',
    'service-upstream': 'true',
    'client-header-timeout': '10',
    'client-body-timeout': '11',
    'keep-alive': '0',
    'keep-alive-requests': '100',
    'load-balance': 'ewma',
    'upstream-keepalive-connections': '0',
    'upstream-keepalive-time': '90m',
    'upstream-keepalive-timeout': '30',
    'upstream-keepalive-requests': '500',
    'ssl-protocols': 'TLSv1.3',
    'ssl-ciphers': 'HIGH:!aNULL:!MD5',
    'ssl-redirect': 'false',
    'force-ssl-redirect': 'true',
    'http-redirect-code': '301',
    'no-tls-redirect-locations': '/.well-known/acme-challenge, /healthz',
    'relative-redirects': 'true',
    hsts: 'false',
    'hsts-max-age': '63072000',
    'hsts-include-subdomains': 'false',
    'hsts-preload': 'true',
    'use-http2': 'false',
    'strict-validate-path-type': 'false',
    'worker-processes': '4',
    'worker-shutdown-timeout': '30s',
    'max-worker-connections': '0',
    'log-format-upstream': '{"time": "$time_iso8601", "status": $status, "host": "${host}"}',
    'log-format-escape-json': 'true',
    'disable-access-log': 'true',
    'error-log-level': 'warn',
    'limit-req-status-code': '429',
    'limit-conn-status-code': '430',
    'limit-conn-zone-variable': '$http_x_api_key',
    'custom-http-errors': '503,404',
    'limit-rate': '10',
    'limit-rate-after': '20',
    'enable-modsecurity': 'true',
    'enable-owasp-modsecurity-crs': 'true',
    'global-auth-url': 'HTTP://Auth.Example:8080/check?u=$host',
    'global-auth-method': 'POST',
    'global-auth-signin': 'https://$host/oauth2/start',
    'global-auth-signin-redirect-param': 'next',
    'global-auth-response-headers': 'X-User, X-Email',
    'global-auth-request-redirect': 'https://example.com/back',
    'global-auth-snippet': 'proxy_set_header X-Snippet on;',
    'global-auth-cache-key': '$remote_user$http_authorization',
    'global-auth-cache-duration': '200 202 10m, 401 1m',
    'global-auth-always-set-cookie': 'true',
    'no-auth-locations': '/.well-known/acme-challenge, /public',
    'global-allowed-response-headers': 'My-Custom-Header, X_Other,',
    'use-gzip': 'true',
    'gzip-level': '5',
    'gzip-min-length': '100',
    'gzip-types': 'text/css',
    'gzip-disable': 'msie6',
    'default-type': 'text/plain',
    'enable-aio-write': 'false',
    'server-name-hash-max-size': '2048',
    'server-name-hash-bucket-size': '128',
    'variables-hash-bucket-size': '128',
    'variables-hash-max-size': '1024',
    'map-hash-bucket-size': '256',
    'grpc-buffer-size-kb': '8',
    'enable-multi-accept': 'false',
    'max-worker-open-files': '2048',
    'worker-cpu-affinity': 'auto',
    'debug-connections': '10.0.0.1',
    'lua-shared-dicts': 'extra: 1',
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(unknownKeys, []);
  assert.deepEqual(settings, {
    allowSnippetAnnotations: true,
    allowCrossNamespaceResources: true,
    annotationsRiskLevel: 'Critical',
    annotationValueWordBlocklist: ['load_module', '_by_lua', 'alias', '"'],
    serverTokens: true,
    useForwardedHeaders: true,
    forwardedForHeader: 'X-Real-Client_IP',
    computeFullForwardedFor: true,
    generateRequestId: false,
    proxyBodySize: '8m',
    proxyConnectTimeout: 3,
    proxyReadTimeout: 120,
    proxySendTimeout: 121,
    proxyBuffering: 'on',
    proxyBufferSize: '16k',
    proxyBuffersNumber: 8,
    proxyBusyBuffersSize: '32k',
    proxyMaxTempFileSize: '0',
    proxyRequestBuffering: 'off',
    proxyHttpVersion: '1.0',
    clientBodyBufferSize: '1m',
    proxyNextUpstream: ['error', 'timeout', 'http_502'],
    proxyNextUpstreamTimeout: 7,
    proxyNextUpstreamTries: 0,
    retryNonIdempotent: true,
    serviceUpstream: true,
    clientHeaderTimeout: 10,
    clientBodyTimeout: 11,
    keepAlive: 0,
    keepAliveRequests: 100,
    loadBalance: 'ewma',
    upstreamKeepaliveConnections: 0,
    upstreamKeepaliveTime: '90m',
    upstreamKeepaliveTimeout: 30,
    upstreamKeepaliveRequests: 500,
    sslProtocols: ['TLSv1.3'],
    sslCiphers: 'HIGH:!aNULL:!MD5',
    sslRedirect: false,
    forceSslRedirect: true,
    httpRedirectCode: 301,
    noTlsRedirectLocations: ['/.well-known/acme-challenge', '/healthz'],
    relativeRedirects: true,
    hsts: false,
    hstsMaxAge: 63072000,
    hstsIncludeSubdomains: false,
    hstsPreload: true,
    useHttp2: false,
    strictValidatePathType: false,
    workerProcesses: 4,
    workerShutdownTimeout: '30s',
    maxWorkerConnections: 0,
    logFormatUpstream: '{"time": "$time_iso8601", "status": $status, "host": "${host}"}',
    logFormatEscapeJson: true,
    disableAccessLog: true,
    errorLogLevel: 'warn',
    limitReqStatusCode: 429,
    limitConnStatusCode: 430,
    limitConnZoneVariable: '$http_x_api_key',
    customHttpErrors: [404, 503],
    limitRate: 10,
    limitRateAfter: 20,
    enableModsecurity: true,
    enableOwaspModsecurityCrs: true,
    globalAuthUrl: { scheme: 'http', host: 'auth.example', port: 8080, path: '/check?u=$host' },
    globalAuthMethod: 'POST',
    globalAuthSignin: 'https://$host/oauth2/start',
    globalAuthSigninRedirectParam: 'next',
    globalAuthResponseHeaders: ['X-User', 'X-Email'],
    globalAuthRequestRedirect: 'https://example.com/back',
    globalAuthSnippet: 'proxy_set_header X-Snippet on;',
    globalAuthCacheKey: '$remote_user$http_authorization',
    globalAuthCacheDuration: [
      { codes: [200, 202], time: '10m' },
      { codes: [401], time: '1m' },
    ],
    globalAuthAlwaysSetCookie: true,
    noAuthLocations: ['/.well-known/acme-challenge', '/public'],
    globalAllowedResponseHeaders: ['My-Custom-Header', 'X_Other'],
    // Each key of the header group is read in headerSettings.test.ts.
    ...HEADER_DEFAULTS,
    ...TLS_DEFAULTS,
    // The logging keys: loggingSettings.test.ts.
    ...LOGGING_DEFAULTS,
    // Unset here; its own keys: clientAddressSettings.test.ts.
    ...CLIENT_ADDRESS_DEFAULTS,
    useGzip: true,
    gzipLevel: 5,
    gzipMinLength: 100,
    gzipTypes: ['text/css'],
    gzipDisable: 'msie6',
    defaultType: 'text/plain',
    enableAioWrite: false,
    serverNameHashMaxSize: 2048,
    serverNameHashBucketSize: 128,
    variablesHashBucketSize: 128,
    variablesHashMaxSize: 1024,
    mapHashBucketSize: 256,
    grpcBufferSizeKb: 8,
    enableMultiAccept: false,
    maxWorkerOpenFiles: 2048,
    workerCpuAffinity: ['auto'],
    debugConnections: ['10.0.0.1'],
    luaSharedDicts: [{ name: 'extra', kilobytes: 1024 }],
    ...GLOBAL_ACCESS_DEFAULTS,
    ...GLOBAL_SNIPPET_DEFAULTS,
    ...RESPONSE_REWRITE_DEFAULTS,
    ...GEOIP2_DEFAULTS,
    ...STREAM_PROXY_DEFAULTS,
  });
});

test('the defaults written out as ConfigMap values are valid values', () => {
  const { settings, problems } = parseGlobalSettings({
    'log-format-upstream': DEFAULT_SETTINGS.logFormatUpstream,
    'ssl-ciphers': DEFAULT_SETTINGS.sslCiphers,
    'ssl-protocols': DEFAULT_SETTINGS.sslProtocols.join(' '),
    'no-tls-redirect-locations': DEFAULT_SETTINGS.noTlsRedirectLocations.join(','),
    'forwarded-for-header': DEFAULT_SETTINGS.forwardedForHeader,
    'upstream-keepalive-time': DEFAULT_SETTINGS.upstreamKeepaliveTime,
    'worker-shutdown-timeout': DEFAULT_SETTINGS.workerShutdownTimeout,
    'proxy-body-size': DEFAULT_SETTINGS.proxyBodySize,
    'load-balance': DEFAULT_SETTINGS.loadBalance,
    'proxy-buffer-size': DEFAULT_SETTINGS.proxyBufferSize,
    'proxy-busy-buffers-size': '',
    'proxy-max-temp-file-size': DEFAULT_SETTINGS.proxyMaxTempFileSize,
    'proxy-next-upstream': DEFAULT_SETTINGS.proxyNextUpstream.join(' '),
    'client-body-buffer-size': DEFAULT_SETTINGS.clientBodyBufferSize,
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, DEFAULT_SETTINGS);
});

test('an invalid value keeps the default and names the key and the value', () => {
  const invalid: Record<string, string[]> = {
    'allow-snippet-annotations': ['yes', 'on', ''],
    'annotations-risk-level': ['Severe', 'Critcal', ''],
    'forwarded-for-header': ['X-Forwarded-For;', 'X Forwarded', '$http_x', "X'", ''],
    'proxy-body-size': ['1mb', '-1', '1.5m', ''],
    'proxy-read-timeout': ['60s', '-1', '2147484'],
    'keep-alive-requests': ['-1', 'many', '2147483648'],
    'upstream-keepalive-time': ['1 h', 'forever', '1x', '-1s', '1h30m'],
    'ssl-protocols': ['TLSv1.4', 'tlsv1.2', 'TLSv1.2,TLSv1.3', ''],
    'ssl-ciphers': ['HIGH;', 'HIGH:"', "HIGH'", 'HIGH:{}', ''],
    'http-redirect-code': ['303', '200', 'permanent'],
    'no-tls-redirect-locations': ['.well-known', '/a b', '/a;b', '/a"b', '/$uri'],
    'worker-processes': ['0', '-1', 'Auto', 'two'],
    'worker-shutdown-timeout': ['240 s', 'soon'],
    'log-format-upstream': ["$remote_addr '$request'", '$remote_addr \\"', '', 'costs $', '$ 5', '${a-b}', '${}', '$-'],
    'error-log-level': ['warning', 'WARN', 'fatal'],
    'load-balance': ['EWMA', 'least_conn', 'chash', 'sticky_balanced', ''],
    'enable-modsecurity': ['yes', 'on', 'true; load_module x'],
    'enable-owasp-modsecurity-crs': ['yes', 'enabled'],
    'global-allowed-response-headers': ['X-A;', 'X A', 'X-A: 1', 'X-A,"'],
  };
  expectRefused(invalid);
});

/** Each value, alone in a ConfigMap, keeps every default and gets one message naming its key and value. */
function expectRefused(invalid: Record<string, string[]>): void {
  for (const [key, values] of Object.entries(invalid)) {
    for (const value of values) {
      const { settings, problems } = parseGlobalSettings({ [key]: value });
      assert.deepEqual(settings, DEFAULT_SETTINGS, `${key}: ${value}`);
      assert.equal(problems.length, 1, `${key}: ${value}`);
      assert.ok(problems[0]?.startsWith(`ConfigMap key ${key}: invalid value ${JSON.stringify(value)}; expected `), problems[0]);
      assert.ok(problems[0]?.endsWith('; keeping the default'), problems[0]);
    }
  }
}

test('values nginx accepts but that stop it serving, or that it refuses, keep the default (bounds of issue 12)', () => {
  expectRefused({
    'client-header-timeout': ['0', '2147484'],
    'client-body-timeout': ['0'],
    'proxy-connect-timeout': ['0'],
    'proxy-read-timeout': ['0'],
    'proxy-send-timeout': ['0'],
    'worker-processes': ['9', '100000'],
    'max-worker-connections': ['5', '511', '1048577'],
    'upstream-keepalive-connections': ['65537', '2147483647'],
    'upstream-keepalive-time': ['999999999y', '1y', '1M', '25d', '2147483648ms'],
    'worker-shutdown-timeout': ['1y', '4w'],
    'proxy-body-size': ['9999999999g', '8589934592g'],
    'ssl-ciphers': [
      'FOO',
      'HIGH:FOO',
      'HIGH:!aNUL',
      'RC4',
      '!aNULL:-MD5',
      'TLS_AES_128_GCM_SHA256',
      'HIGH:@SECLEVEL=9',
      'HIGH:@FOO',
      'HIGH+',
    ],
    'log-format-upstream': ['$1', '$remote_addr $no_such_variable', '${the_real_ip}', '$hsts_header'],
  });
});

test('the bounds themselves are accepted', () => {
  const accepted: Record<string, [string, unknown][]> = {
    'client-header-timeout': [
      ['1', 1],
      ['2147483', 2147483],
    ],
    'keep-alive': [['0', 0]],
    'worker-processes': [
      ['1', 1],
      ['8', 8],
      ['auto', 'auto'],
    ],
    'max-worker-connections': [
      ['0', 0],
      ['512', 512],
      ['1048576', 1048576],
    ],
    'upstream-keepalive-connections': [
      ['0', 0],
      ['65536', 65536],
    ],
    'upstream-keepalive-time': [
      ['0', '0'],
      ['24d', '24d'],
      ['2147483647ms', '2147483647ms'],
    ],
    'proxy-body-size': [['8589934591g', '8589934591g']],
    'ssl-ciphers': [
      ['HIGH:!aNULL:!MD5', 'HIGH:!aNULL:!MD5'],
      ['ECDHE+AESGCM:!RC4:!3DES:!EXPORT', 'ECDHE+AESGCM:!RC4:!3DES:!EXPORT'],
      ['DEFAULT:@SECLEVEL=0', 'DEFAULT:@SECLEVEL=0'],
      ['HIGH, MEDIUM', 'HIGH, MEDIUM'],
      ['AES128-SHA:@STRENGTH', 'AES128-SHA:@STRENGTH'],
    ],
    'log-format-upstream': [
      [
        '$http_x_foo $sent_http_content_type ${request_time} $Remote_Addr $namespace $upstream_http_x $ssl_protocol',
        '$http_x_foo $sent_http_content_type ${request_time} $Remote_Addr $namespace $upstream_http_x $ssl_protocol',
      ],
    ],
  };
  const fields: Record<string, keyof typeof DEFAULT_SETTINGS> = {
    'client-header-timeout': 'clientHeaderTimeout',
    'keep-alive': 'keepAlive',
    'worker-processes': 'workerProcesses',
    'max-worker-connections': 'maxWorkerConnections',
    'upstream-keepalive-connections': 'upstreamKeepaliveConnections',
    'upstream-keepalive-time': 'upstreamKeepaliveTime',
    'proxy-body-size': 'proxyBodySize',
    'ssl-ciphers': 'sslCiphers',
    'log-format-upstream': 'logFormatUpstream',
  };
  for (const [key, cases] of Object.entries(accepted)) {
    for (const [text, value] of cases) {
      const { settings, problems } = parseGlobalSettings({ [key]: text });
      assert.deepEqual(problems, [], `${key}: ${text}`);
      assert.deepEqual(settings[fields[key]!], value, `${key}: ${text}`);
    }
  }
});

test('worker-processes is bounded by the CPUs of the machine it is read on', () => {
  assert.equal(parseIn({ 'worker-processes': '64' }, { cpus: 16 }).settings.workerProcesses, 64);
  assert.equal(parseIn({ 'worker-processes': '65' }, { cpus: 16 }).problems.length, 1);
});

test('control characters are refused in every value, without echoing it', () => {
  for (const key of ['log-format-upstream', 'annotation-value-word-blocklist', 'ssl-ciphers', 'proxy-body-size']) {
    for (const value of ['a\nssl_engine /tmp/x', 'a\rb', 'a\tb', 'a\u0000']) {
      const { settings, problems } = parseGlobalSettings({ [key]: value });
      assert.deepEqual(settings, DEFAULT_SETTINGS, key);
      assert.equal(problems.length, 1);
      assert.ok(problems[0]?.startsWith(`ConfigMap key ${key}: the value contains a control character (U+00`), problems[0]);
      assert.ok(!problems[0]?.includes('ssl_engine'), problems[0]);
    }
  }
});

test('a bad value does not affect the other keys', () => {
  const { settings, problems } = parseGlobalSettings({ 'proxy-body-size': 'huge', 'proxy-read-timeout': '30' });
  assert.equal(settings.proxyBodySize, DEFAULT_SETTINGS.proxyBodySize);
  assert.equal(settings.proxyReadTimeout, 30);
  assert.equal(problems.length, 1);
});

test('values are trimmed; booleans follow Go strconv.ParseBool; the risk level is case-insensitive', () => {
  const { settings, problems } = parseGlobalSettings({
    'use-http2': ' False ',
    hsts: '0',
    'server-tokens': 'T',
    'annotations-risk-level': 'medium',
    'worker-processes': 'auto',
  });
  assert.deepEqual(problems, []);
  assert.equal(settings.useHttp2, false);
  assert.equal(settings.hsts, false);
  assert.equal(settings.serverTokens, true);
  assert.equal(settings.annotationsRiskLevel, 'Medium');
  assert.equal(settings.workerProcesses, 'auto');
});

test('empty lists are allowed where a list may be empty', () => {
  const { settings, problems } = parseGlobalSettings({
    'no-tls-redirect-locations': '',
    'annotation-value-word-blocklist': ' , ',
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(settings.noTlsRedirectLocations, []);
  assert.deepEqual(settings.annotationValueWordBlocklist, []);
});

test('keys Portico does not implement are reported, sorted, and change nothing', () => {
  const { settings, problems, unknownKeys } = parseGlobalSettings({
    'enable-brotli': 'true',
    'enable-opentelemetry': 'true',
    'no-such-key': 'x',
  });
  assert.deepEqual(settings, DEFAULT_SETTINGS);
  assert.deepEqual(problems, []);
  assert.deepEqual(unknownKeys, ['enable-brotli', 'enable-opentelemetry', 'no-such-key']);
});

test('the result does not share arrays with DEFAULT_SETTINGS when they are replaced', () => {
  const { settings } = parseGlobalSettings({ 'ssl-protocols': 'TLSv1.3' });
  assert.deepEqual(DEFAULT_SETTINGS.sslProtocols, ['TLSv1.2', 'TLSv1.3']);
  assert.deepEqual(settings.sslProtocols, ['TLSv1.3']);
});

test('load-balance refuses the ingress-nginx algorithms other annotations select, saying which', () => {
  for (const value of ['chash', 'chashsubset', 'sticky_balanced', 'sticky_persistent']) {
    const { settings, problems } = parseGlobalSettings({ 'load-balance': value });
    assert.equal(settings.loadBalance, 'round_robin');
    assert.equal(problems.length, 1);
    assert.ok(problems[0]?.includes('one of round_robin, ewma (chash and chashsubset come from the upstream-hash-by'), problems[0]);
  }
});

test('proxy buffers that nginx refuses together keep all four defaults, with one problem', () => {
  const { settings, problems } = parseGlobalSettings({ 'proxy-buffers-number': '2', 'proxy-buffer-size': '8k' });
  assert.deepEqual(
    [settings.proxyBufferSize, settings.proxyBuffersNumber, settings.proxyBusyBuffersSize, settings.proxyMaxTempFileSize],
    ['4k', 4, undefined, '1024m'],
  );
  assert.equal(problems.length, 1);
  assert.match(problems[0] ?? '', /proxy-buffers-number.*nginx would refuse them together.*keeping the defaults/);
  // With a busy size of one buffer, two buffers are fine.
  assert.deepEqual(parseGlobalSettings({ 'proxy-buffers-number': '2', 'proxy-busy-buffers-size': '4k' }).problems, []);
});

test('proxy tuning keys refuse what nginx cannot take', () => {
  for (const [key, value] of [
    ['proxy-buffer-size', '1g'],
    ['proxy-buffer-size', '0'],
    ['proxy-buffer-size', '65m'],
    ['proxy-buffers-number', '1'],
    ['proxy-buffers-number', '1025'],
    ['client-body-buffer-size', '4k;'],
    ['proxy-http-version', '2'],
    ['proxy-request-buffering', 'yes'],
    ['proxy-next-upstream', 'error; timeout'],
    ['proxy-next-upstream', 'http_501'],
    ['proxy-next-upstream-tries', '-1'],
    ['retry-non-idempotent', 'yes'],
  ] as const) {
    const { settings, problems } = parseGlobalSettings({ [key]: value });
    assert.equal(problems.length, 1, `${key}: ${value}`);
    assert.deepEqual(settings, DEFAULT_SETTINGS, `${key}: ${value} keeps the default`);
  }
});
