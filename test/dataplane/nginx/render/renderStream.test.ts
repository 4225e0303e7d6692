// The stream block's own directives and its snippets, as ingress-nginx's
// template writes them: log_stream, the access log (and when it is off), the
// error log, realip's trusted proxies, then the Ingresses' stream-snippet
// annotations (each traced to its Ingress) and the ConfigMap's (traced to the
// settings); accepted by nginx -t. Nothing of it without a stream block.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { originOfLine } from '../../../../src/dataplane/nginx/render/configOrigins.js';
import { renderNginxConf, renderTracedNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { DEFAULT_LOG_FORMAT_STREAM } from '../../../../src/model/settings/keys/loggingSettings.js';
import { NO_STREAM, type IngressStreamSnippet } from '../../../../src/model/stream/streamTypes.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, ingressRef, location, server } from './fixtures.js';
import { context, web } from './hostileValues.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { argsOf, named, only } from './parsedTree.js';

const GLOBAL_SNIPPET = 'server {\n    listen 127.0.0.1:19001;\n    return "global";\n}';
const SNIPPETS: IngressStreamSnippet[] = [
  { ingress: ingressRef('team-a', 'old'), snippet: 'server {\n    listen 127.0.0.1:19002;\n    return "old";\n}' },
  { ingress: ingressRef('team-b', 'new'), snippet: 'server {\n\tlisten 127.0.0.1:19003;\n\treturn "new";\n}' },
];

function scenario(settings: Partial<GlobalSettings>, snippets: IngressStreamSnippet[] = []): Configuration {
  const base = configuration({
    servers: [server('_', []), server('a.example', [location('/', 'prefix', web.name)])],
    backends: [web],
    settings,
  });
  return snippets.length === 0 ? base : { ...base, stream: { ...NO_STREAM, snippets } };
}

function streamOf(config: Configuration): ParsedDirective {
  return only(parseNginxConf(renderNginxConf(config, context)), 'stream');
}

const withGlobalSnippet = (settings: Partial<GlobalSettings> = {}) => scenario({ streamSnippet: GLOBAL_SNIPPET, ...settings });

test('no stream block, and no stream module, while nothing asks for one', () => {
  const tree = parseNginxConf(renderNginxConf(scenario({ enableRealIp: true, disableStreamAccessLog: true }), context));
  assert.deepEqual(named(tree, 'stream'), []);
  assert.ok(!argsOf({ name: '', args: [], children: tree }, 'load_module').some(([file = '']) => file.endsWith('ngx_stream_module.so')));
});

describe('the defaults', () => {
  const stream = streamOf(withGlobalSnippet());
  test("log_stream with ingress-nginx's format", () => {
    assert.deepEqual(argsOf(stream, 'log_format'), [['log_stream', DEFAULT_LOG_FORMAT_STREAM]]);
  });
  test("the access log in Portico's access log file, the error log in its error log at error-log-level", () => {
    assert.deepEqual(argsOf(stream, 'access_log'), [[context.paths.accessLog, 'log_stream']]);
    assert.deepEqual(argsOf(stream, 'error_log'), [[context.paths.errorLog, 'notice']]);
  });
  test('no realip, no $proxy_upstream_name of its own', () => {
    assert.deepEqual(argsOf(stream, 'set_real_ip_from'), []);
    assert.deepEqual(named(stream.children, 'map'), []);
  });
});

test('log-format-stream is written as given, without escape= (log-format-escape-json and -none are the http log’s)', () => {
  const format = '{"remote":"$remote_addr","upstream":"$upstream_addr","bytes":$bytes_sent}';
  for (const escape of [{ logFormatEscapeJson: true }, { logFormatEscapeNone: true }, {}]) {
    assert.deepEqual(argsOf(streamOf(withGlobalSnippet({ logFormatStream: format, ...escape })), 'log_format'), [['log_stream', format]]);
  }
});

test('a format naming $proxy_upstream_name gets it defined for every stream server ("" where none sets it)', () => {
  const stream = streamOf(withGlobalSnippet({ logFormatStream: '$remote_addr [$proxy_upstream_name]' }));
  const map = only(stream.children, 'map');
  assert.deepEqual(map.args, ['', '$proxy_upstream_name']);
  assert.deepEqual(argsOf(map, 'default'), [['']]);
});

test('stream-access-log-path wins over access-log-path; access-log-params follow the format', () => {
  const params = {
    accessLogParams: [
      { name: 'buffer' as const, size: '32k' },
      { name: 'flush' as const, time: '5s' },
    ],
  };
  assert.deepEqual(argsOf(streamOf(withGlobalSnippet({ accessLogPath: '/var/log/all.log', ...params })), 'access_log'), [
    ['/var/log/all.log', 'log_stream', 'buffer=32k', 'flush=5s'],
  ]);
  const both = { accessLogPath: '/var/log/all.log', streamAccessLogPath: '/var/log/stream.log', httpAccessLogPath: '/var/log/http.log' };
  assert.deepEqual(argsOf(streamOf(withGlobalSnippet(both)), 'access_log'), [['/var/log/stream.log', 'log_stream']]);
});

test('disable-access-log or disable-stream-access-log: access_log off', () => {
  for (const off of [{ disableAccessLog: true }, { disableStreamAccessLog: true }]) {
    assert.deepEqual(argsOf(streamOf(withGlobalSnippet({ streamAccessLogPath: '/var/log/stream.log', ...off })), 'access_log'), [['off']]);
  }
  // disable-stream-access-log leaves the http block's access log alone.
  const http = only(parseNginxConf(renderNginxConf(withGlobalSnippet({ disableStreamAccessLog: true }), context)), 'http');
  assert.deepEqual(argsOf(http, 'access_log'), [[context.paths.accessLog, 'upstreaminfo']]);
});

test('error-log-path and error-log-level', () => {
  const stream = streamOf(withGlobalSnippet({ errorLogPath: '/var/log/nginx-errors.log', errorLogLevel: 'warn' }));
  assert.deepEqual(argsOf(stream, 'error_log'), [['/var/log/nginx-errors.log', 'warn']]);
});

test('enable-real-ip: set_real_ip_from per proxy-real-ip-cidr; use-proxy-protocol alone adds none (as the template)', () => {
  const cidrs = ['10.0.0.0/8', '2001:db8::/32'];
  assert.deepEqual(argsOf(streamOf(withGlobalSnippet({ enableRealIp: true, proxyRealIpCidr: cidrs })), 'set_real_ip_from'), [
    ['10.0.0.0/8'],
    ['2001:db8::/32'],
  ]);
  assert.deepEqual(argsOf(streamOf(withGlobalSnippet({ useProxyProtocol: true, proxyRealIpCidr: cidrs })), 'set_real_ip_from'), []);
});

describe('snippets', () => {
  const config = scenario({ streamSnippet: GLOBAL_SNIPPET }, SNIPPETS);
  const { config: traced, origins } = renderTracedNginxConf(config, context);
  const stream = only(parseNginxConf(traced.bytes.toString()), 'stream');

  test("the Ingresses' snippets, oldest first, then the ConfigMap's, at the end of the stream block", () => {
    const tail = (stream.children ?? []).slice(-3);
    assert.deepEqual(
      tail.map((node) => [node.name, ...argsOf(node, 'return').flat()]),
      [
        ['server', 'old'],
        ['server', 'new'],
        ['server', 'global'],
      ],
    );
  });

  test("each snippet's lines are traced to its Ingress, the ConfigMap's to the settings", () => {
    const lines = traced.bytes.toString().split('\n');
    const originOf = (needle: string) => originOfLine(traced, origins, lines.findIndex((line) => line.includes(needle)) + 1);
    assert.deepEqual(originOf('return "old"'), { kind: 'ingress', ingress: ingressRef('team-a', 'old') });
    assert.deepEqual(originOf('listen 127.0.0.1:19003'), { kind: 'ingress', ingress: ingressRef('team-b', 'new') });
    assert.deepEqual(originOf('return "global"'), { kind: 'settings' });
    assert.deepEqual(originOf('log_format log_stream'), { kind: 'settings' });
  });

  test('an annotation snippet alone brings the stream block and its module', () => {
    const tree = parseNginxConf(renderNginxConf(scenario({}, SNIPPETS), context));
    assert.equal(named(only(tree, 'stream').children, 'server').length, 2);
    assert.ok(argsOf({ name: '', args: [], children: tree }, 'load_module').some(([file = '']) => file.endsWith('ngx_stream_module.so')));
  });

  test('passes nginx -t, with every stream key set', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(traced.bytes.toString(), context);
    const everything = scenario(
      {
        streamSnippet: GLOBAL_SNIPPET,
        logFormatStream: '$remote_addr $proxy_upstream_name $upstream_addr $ssl_preread_server_name $realip_remote_addr',
        streamAccessLogPath: 'logs/stream.log',
        accessLogParams: [
          { name: 'gzip', level: 4 },
          { name: 'flush', time: '1m' },
        ],
        errorLogLevel: 'debug',
        enableRealIp: true,
        proxyRealIpCidr: ['192.0.2.0/24', '::1'],
      },
      SNIPPETS,
    );
    await nginxSyntaxCheck(renderNginxConf(everything, context), context);
  });
});
