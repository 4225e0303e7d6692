// The logging keys (keys/loggingSettings.ts, accessLogParameters.ts) through
// parseGlobalSettings: valid, invalid and hostile values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { DEFAULT_LOG_FORMAT_STREAM } from '../../../src/model/settings/keys/loggingSettings.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

/** The value one key gets, and the problems. */
function read(key: string, value: string) {
  return parse({ [key]: value });
}

function refused(key: string, value: string): void {
  const { settings, problems } = read(key, value);
  assert.deepEqual(settings, DEFAULT_SETTINGS, `${key}: ${JSON.stringify(value)} keeps every default`);
  assert.equal(problems.length, 1, `${key}: ${JSON.stringify(value)}`);
  assert.match(problems[0] ?? '', new RegExp(`^ConfigMap key ${key}: .*keeping the default$`));
}

test("the defaults: Portico's own files, no parameters, no skipped URLs, no syslog, the default backend not logged", () => {
  const { settings, problems } = parse({});
  assert.deepEqual(problems, []);
  assert.equal(settings.accessLogPath, undefined);
  assert.equal(settings.httpAccessLogPath, undefined);
  assert.equal(settings.streamAccessLogPath, undefined);
  assert.equal(settings.errorLogPath, undefined);
  assert.equal(settings.logFormatStream, DEFAULT_LOG_FORMAT_STREAM);
  assert.deepEqual(settings.accessLogParams, []);
  assert.equal(settings.logFormatEscapeNone, false);
  assert.deepEqual(settings.skipAccessLogUrls, []);
  assert.equal(settings.enableAccessLogForDefaultBackend, false);
  assert.equal(settings.enableSyslog, false);
  assert.equal(settings.syslogHost, undefined);
  assert.equal(settings.syslogPort, 514);
});

test('every logging key is read from its ingress-nginx key', () => {
  const { settings, problems } = parse({
    'access-log-path': '/var/log/nginx/access.log',
    'http-access-log-path': '/dev/stdout',
    'stream-access-log-path': '/tmp/nginx/stream-access.log',
    'log-format-stream': '$remote_addr $upstream_addr $ssl_preread_server_name ${session_time}',
    'error-log-path': '/var/log/portico/error.log',
    'access-log-params': 'buffer=16k  flush=1m gzip',
    'log-format-escape-none': 'true',
    'skip-access-log-urls': '/healthz, /metrics?x=1,,/a/b.c',
    'enable-access-log-for-default-backend': 'True',
    'enable-syslog': '1',
    'syslog-host': 'Syslog.Example.com',
    'syslog-port': '11514',
  });
  assert.deepEqual(problems, []);
  assert.equal(settings.accessLogPath, '/var/log/nginx/access.log');
  assert.equal(settings.httpAccessLogPath, '/dev/stdout');
  assert.equal(settings.streamAccessLogPath, '/tmp/nginx/stream-access.log');
  assert.equal(settings.logFormatStream, '$remote_addr $upstream_addr $ssl_preread_server_name ${session_time}');
  assert.equal(settings.errorLogPath, '/var/log/portico/error.log');
  assert.deepEqual(settings.accessLogParams, [
    { name: 'buffer', size: '16k' },
    { name: 'flush', time: '1m' },
    { name: 'gzip', level: undefined },
  ]);
  assert.equal(settings.logFormatEscapeNone, true);
  assert.deepEqual(settings.skipAccessLogUrls, ['/healthz', '/metrics?x=1', '/a/b.c']);
  assert.equal(settings.enableAccessLogForDefaultBackend, true);
  assert.equal(settings.enableSyslog, true);
  assert.equal(settings.syslogHost, 'syslog.example.com');
  assert.equal(settings.syslogPort, 11514);
});

test('an empty path or syslog host is unset, as in ingress-nginx; error-log-path takes stderr', () => {
  for (const key of ['access-log-path', 'http-access-log-path', 'stream-access-log-path', 'error-log-path', 'syslog-host']) {
    assert.deepEqual(read(key, ''), { settings: DEFAULT_SETTINGS, problems: [], unknownKeys: [] }, key);
  }
  assert.equal(read('error-log-path', 'stderr').settings.errorLogPath, 'stderr');
  assert.equal(read('error-log-path', '/dev/stderr').settings.errorLogPath, 'stderr');
  refused('access-log-path', 'stderr');
});

test('a log path stays one absolute file path, of at most 1024 characters', () => {
  assert.equal(read('access-log-path', `/${'a'.repeat(1023)}`).problems.length, 0);
  for (const key of ['access-log-path', 'http-access-log-path', 'stream-access-log-path', 'error-log-path']) {
    for (const hostile of [
      'relative/access.log',
      '/',
      '/var/log/nginx/',
      '/var/log/$host.log',
      '/var/log/a b.log',
      '/var/log/a.log; include /etc/passwd',
      '/var/log/a"b',
      "/var/log/a'b",
      '/var/log/a\\b',
      '/var/log/*.log',
      '/var/log/a{b}',
      '/var/log/a#b',
      'syslog:server=127.0.0.1',
      'off',
      '/var/log/a.log\n',
      '/var/log/a\u0000.log',
      `/${'a'.repeat(1024)}`,
    ]) {
      refused(key, hostile);
    }
  }
});

test('access-log-params: what access_log takes after the format, within what nginx accepts', () => {
  assert.deepEqual(read('access-log-params', 'gzip=9 buffer=1').settings.accessLogParams, [
    { name: 'gzip', level: 9 },
    { name: 'buffer', size: '1' },
  ]);
  assert.deepEqual(read('access-log-params', 'buffer=16m flush=5s').settings.accessLogParams, [
    { name: 'buffer', size: '16m' },
    { name: 'flush', time: '5s' },
  ]);
  assert.deepEqual(read('access-log-params', 'gzip flush=1s').problems, []);
  for (const invalid of [
    'buffer=0',
    'buffer=17m',
    'buffer=2g',
    'buffer=',
    'buffer',
    'flush=1m',
    'buffer=4k flush=0',
    'buffer=4k flush=1y',
    'gzip=0',
    'gzip=10',
    'gzip=',
    'buffer=4k buffer=8k',
    'if=$loggable',
    'buffer=4k;',
    'buffer=4k if=$host',
    'format=combined',
    'buffer=4k\tgzip',
  ]) {
    refused('access-log-params', invalid);
  }
});

test('skip-access-log-urls: request targets starting with "/"', () => {
  assert.deepEqual(read('skip-access-log-urls', `/${'a'.repeat(1023)}`).problems, []);
  refused('skip-access-log-urls', `/${'a'.repeat(1024)}`);
  for (const invalid of ['health-check', '~^/health', '\\/health', 'default', '/a b', '/a\u00e9']) refused('skip-access-log-urls', invalid);
  assert.deepEqual(read('skip-access-log-urls', '/a"b,/c;d,/e{f}').settings.skipAccessLogUrls, ['/a"b', '/c;d', '/e{f}']);
});

test('log-format-escape-none, enable-access-log-for-default-backend, enable-syslog: Go booleans', () => {
  for (const key of ['log-format-escape-none', 'enable-access-log-for-default-backend', 'enable-syslog']) refused(key, 'yes');
});

test('syslog-host: an IP address or a DNS name; syslog-port: a port', () => {
  assert.equal(read('syslog-host', '192.0.2.1').settings.syslogHost, '192.0.2.1');
  assert.equal(read('syslog-host', '2001:db8::1').settings.syslogHost, '[2001:db8::1]');
  assert.equal(read('syslog-host', '[2001:db8::1]').settings.syslogHost, '[2001:db8::1]');
  for (const invalid of ['syslog.example.com:514', 'a b', 'http://x', '-bad.example.com', '999.1.1.1', 'x;y'])
    refused('syslog-host', invalid);
  for (const invalid of ['0', '65536', '-1', 'syslog', '51 4']) refused('syslog-port', invalid);
});

test('enable-syslog without syslog-host: a problem, and the logs stay in their files', () => {
  const { settings, problems } = parse({ 'enable-syslog': 'true' });
  assert.equal(settings.enableSyslog, false);
  assert.deepEqual(problems, ['ConfigMap key enable-syslog: "true" needs syslog-host; logging to the files instead']);
});

test("log-format-stream: the stream modules' variables only, with the log format syntax", () => {
  for (const invalid of ['$request_uri', '$http_host', "it's", 'a\\b', '$', '${bad-name}']) refused('log-format-stream', invalid);
});
