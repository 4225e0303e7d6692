// The logging keys rendered (renderLogging.ts): what ingress-nginx's template
// writes for them, and nginx -t accepting it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { DEFAULT_LOG_FORMAT_UPSTREAM } from '../../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../../src/model/settings/parseGlobalSettings.js';
import type { Configuration } from '../../../../src/model/types.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { argsOf, named, only } from './parsedTree.js';

const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);
const context = testContext();

/** The configuration with these ConfigMap keys, parsed as the controller parses them. */
function withKeys(data: Record<string, string>): Configuration {
  const { settings, problems } = parseGlobalSettings(data, { cpus: 2 });
  assert.deepEqual(problems, []);
  return configuration({ servers: [server('_', []), server('a.example', [location('/', 'prefix', web.name)])], backends: [web], settings });
}

function trees(data: Record<string, string>) {
  const tree = parseNginxConf(renderNginxConf(withKeys(data), context));
  return { main: tree, http: only(tree, 'http') };
}

describe('logging keys rendered', () => {
  test("the defaults: Portico's access and error logs in its prefix, no $loggable map, no error_log in http", () => {
    const { main, http } = trees({});
    assert.deepEqual(argsOf(http, 'log_format'), [['upstreaminfo', DEFAULT_LOG_FORMAT_UPSTREAM]]);
    assert.deepEqual(argsOf(http, 'access_log'), [[context.paths.accessLog, 'upstreaminfo']]);
    assert.deepEqual(only(main, 'error_log').args, [context.paths.errorLog, 'notice']);
    assert.deepEqual(argsOf(http, 'error_log'), []);
    assert.ok(!named(http.children, 'map').some((map) => map.args[1] === '$loggable'));
  });

  test('access-log-path moves the access log; http-access-log-path wins over it; the parameters follow the format', () => {
    assert.deepEqual(argsOf(trees({ 'access-log-path': '/tmp/nginx/access.log' }).http, 'access_log'), [
      ['/tmp/nginx/access.log', 'upstreaminfo'],
    ]);
    const both = trees({
      'access-log-path': '/tmp/nginx/access.log',
      'http-access-log-path': '/dev/stdout',
      'access-log-params': 'buffer=16k flush=1m gzip=4',
      'stream-access-log-path': '/tmp/nginx/stream.log',
    });
    assert.deepEqual(argsOf(both.http, 'access_log'), [['/dev/stdout', 'upstreaminfo', 'buffer=16k', 'flush=1m', 'gzip=4']]);
    assert.ok(
      !renderNginxConf(withKeys({ 'stream-access-log-path': '/tmp/nginx/stream.log' }), context).includes('stream.log'),
      'no stream block while nothing asks for one',
    );
  });

  test("error-log-path moves the main context's error log, stderr too", () => {
    assert.deepEqual(only(trees({ 'error-log-path': '/tmp/nginx/error.log', 'error-log-level': 'warn' }).main, 'error_log').args, [
      '/tmp/nginx/error.log',
      'warn',
    ]);
    assert.deepEqual(only(trees({ 'error-log-path': 'stderr' }).main, 'error_log').args, ['stderr', 'notice']);
  });

  test('skip-access-log-urls: an exact-match regex per URL in map $request_uri $loggable, and if=$loggable', () => {
    const { http } = trees({ 'skip-access-log-urls': '/healthz,/a.b?c=(d),/healthz' });
    const [map, ...others] = named(http.children, 'map').filter((block) => block.args[1] === '$loggable');
    assert.equal(others.length, 0);
    assert.deepEqual(map?.args, ['$request_uri', '$loggable']);
    assert.deepEqual(
      map?.children?.map((entry) => [entry.name, ...entry.args]),
      [
        ['~^/healthz$', '0'],
        ['~^/a\\.b\\?c=\\(d\\)$', '0'],
        ['default', '1'],
      ],
    );
    assert.deepEqual(argsOf(http, 'access_log'), [[context.paths.accessLog, 'upstreaminfo', 'if=$loggable']]);
  });

  test('log-format-escape-none wins over log-format-escape-json', () => {
    const format = (data: Record<string, string>) => argsOf(trees(data).http, 'log_format')[0]?.slice(0, 2);
    assert.deepEqual(format({ 'log-format-escape-none': 'true', 'log-format-escape-json': 'true' }), ['upstreaminfo', 'escape=none']);
    assert.deepEqual(format({ 'log-format-escape-json': 'true' }), ['upstreaminfo', 'escape=json']);
    assert.deepEqual(format({ 'log-format-escape-none': 'false' }), ['upstreaminfo', DEFAULT_LOG_FORMAT_UPSTREAM]);
  });

  test("enable-syslog: the access log and the http block's error log to syslog-host:syslog-port, without access-log-params", () => {
    const { main, http } = trees({
      'enable-syslog': 'true',
      'syslog-host': '2001:db8::1',
      'syslog-port': '11514',
      'access-log-params': 'buffer=16k',
      'skip-access-log-urls': '/healthz',
      'error-log-level': 'warn',
    });
    assert.deepEqual(argsOf(http, 'access_log'), [['syslog:server=[2001:db8::1]:11514', 'upstreaminfo', 'if=$loggable']]);
    assert.deepEqual(argsOf(http, 'error_log'), [['syslog:server=[2001:db8::1]:11514', 'warn']]);
    assert.deepEqual(only(main, 'error_log').args, [context.paths.errorLog, 'warn']);
  });

  test('disable-access-log wins over the path and syslog', () => {
    const { http } = trees({
      'disable-access-log': 'true',
      'enable-syslog': 'true',
      'syslog-host': '127.0.0.1',
      'access-log-path': '/tmp/a.log',
    });
    assert.deepEqual(argsOf(http, 'access_log'), [['off']]);
  });

  test('nginx -t accepts every combination at its bounds', { skip: missingNginx }, async () => {
    // The longest URL, every character escaped in its regex; the longest path.
    const long = `/${'.'.repeat(1023)}`;
    const longPath = `/dev${'/.'.repeat(507)}/null`;
    const combinations: Record<string, string>[] = [
      {},
      {
        'access-log-path': '/dev/null',
        'error-log-path': longPath,
        'access-log-params': 'buffer=16m flush=24d gzip=9',
        'log-format-escape-none': 'true',
        'skip-access-log-urls': `/healthz,${long},/a"b;c{d}e#f$g\\h`,
      },
      // /dev/stdout only opens where stdout is no socket, as this test's pipe is (e2e/logging.test.ts has it).
      { 'http-access-log-path': '/dev/null', 'access-log-params': 'gzip flush=1ms', 'error-log-path': '/dev/stderr' },
      { 'access-log-params': 'buffer=1' },
      { 'enable-syslog': 'true', 'syslog-host': '127.0.0.1', 'syslog-port': '65535', 'skip-access-log-urls': '/x' },
      { 'enable-syslog': 'true', 'syslog-host': '::1', 'syslog-port': '1' },
      { 'enable-syslog': 'true', 'syslog-host': 'localhost' },
    ];
    for (const data of combinations) {
      await nginxSyntaxCheck(renderNginxConf(withKeys(data), context), context);
    }
  });
});
