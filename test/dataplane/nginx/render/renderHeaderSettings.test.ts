// The header keys of the global ConfigMap in nginx.conf: what the http block
// gets (as ingress-nginx's template), what each proxied location gets, and that
// nginx -t accepts it at the bounds the model allows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEADERS_MORE_MODULE_FILE } from '../../../../src/dataplane/nginx/render/renderHeaders.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { GlobalHeaders } from '../../../../src/model/globalHeaders.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import type { Configuration } from '../../../../src/model/types.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { appliedArgs, argsOf, locationOf, only, serverNamed } from './parsedTree.js';

const context = testContext();
const web = backend('default-web-80', [{ address: '10.0.0.1', port: 8080 }]);

function scenario(settings: Partial<GlobalSettings> = {}, globalHeaders?: GlobalHeaders): Configuration {
  const config = configuration({
    settings,
    servers: [
      server('headers.example', [
        location('/web', 'prefix', web.name),
        location('/grpc', 'prefix', web.name, { annotations: { backendProtocol: 'GRPC' } }),
      ]),
    ],
    backends: [web],
  });
  return globalHeaders === undefined ? config : { ...config, globalHeaders };
}

function rendered(config: Configuration): { tree: ParsedDirective[]; http: ParsedDirective; web: ParsedDirective; grpc: ParsedDirective } {
  const tree = parseNginxConf(renderNginxConf(config, context));
  const host = serverNamed(tree, 'headers.example');
  return { tree, http: only(tree, 'http'), web: locationOf(host, '/web/'), grpc: locationOf(host, '/grpc/') };
}

const loadsHeadersMore = (tree: ParsedDirective[]): boolean =>
  argsOf({ name: '', args: [], children: tree }, 'load_module').some(([file = '']) => file.endsWith(HEADERS_MORE_MODULE_FILE));
/** What nginx sends upstream from `block`: its own list, else the one it inherits from the http block. */
const requestHeaders = (tree: ParsedDirective[], block: ParsedDirective, module = 'proxy'): string[][] =>
  appliedArgs(tree, block, `${module}_set_header`);

test("defaults: the http block's header directives as ingress-nginx's template writes them, Server removed with headers-more", () => {
  const { tree, http } = rendered(scenario());
  const directives = (names: string[]) => names.map((name) => [name, argsOf(http, name)]);
  assert.deepEqual(
    directives([
      'client_header_buffer_size',
      'large_client_header_buffers',
      'http2_max_concurrent_streams',
      'proxy_headers_hash_max_size',
      'proxy_headers_hash_bucket_size',
      'underscores_in_headers',
      'ignore_invalid_headers',
      'server_tokens',
      'more_clear_headers',
      'more_set_headers',
      'proxy_pass_header',
      'proxy_hide_header',
      'grpc_hide_header',
    ]),
    [
      ['client_header_buffer_size', [['1k']]],
      ['large_client_header_buffers', [['4', '8k']]],
      ['http2_max_concurrent_streams', [['128']]],
      ['proxy_headers_hash_max_size', [['512']]],
      ['proxy_headers_hash_bucket_size', [['64']]],
      ['underscores_in_headers', [['off']]],
      ['ignore_invalid_headers', [['on']]],
      ['server_tokens', [['off']]],
      ['more_clear_headers', [['Server']]],
      ['more_set_headers', []],
      ['proxy_pass_header', []],
      // hsts is on by default: the backend's own header gives way to Portico's.
      ['proxy_hide_header', [['Strict-Transport-Security']]],
      ['grpc_hide_header', [['Strict-Transport-Security']]],
    ],
  );
  assert.ok(loadsHeadersMore(tree));
});

test('nothing per location at the defaults: the same request headers as without these keys', () => {
  const { tree, web, grpc } = rendered(scenario());
  const names = (block: ParsedDirective, module?: string) => requestHeaders(tree, block, module).map(([name]) => name);
  assert.ok(!names(web).includes('X-Original-URI'));
  assert.ok(!names(grpc, 'grpc').includes('X-Original-URI'));
  assert.deepEqual(argsOf(web, 'more_set_headers'), []);
});

test("server-tokens on: nginx names itself, no headers-more, unless a key needs it; allow-backend-server-header passes the backend's", () => {
  const on = rendered(scenario({ serverTokens: true, hsts: false }));
  assert.deepEqual(argsOf(on.http, 'server_tokens'), [['on']]);
  assert.deepEqual(argsOf(on.http, 'more_clear_headers'), []);
  assert.deepEqual(argsOf(on.http, 'proxy_hide_header'), []);
  assert.ok(!loadsHeadersMore(on.tree));
  const passed = rendered(scenario({ serverTokens: true, allowBackendServerHeader: true }));
  assert.deepEqual(argsOf(passed.http, 'proxy_pass_header'), [['Server']]);
  const added = rendered(scenario({ serverTokens: true }, { response: [['X-A', 'a']], request: [] }));
  assert.ok(loadsHeadersMore(added.tree));
});

test('hide-headers: one proxy_hide_header per name, then HSTS', () => {
  const { http } = rendered(scenario({ hideHeaders: ['X-Powered-By', 'X_Internal'] }));
  assert.deepEqual(argsOf(http, 'proxy_hide_header'), [['X-Powered-By'], ['X_Internal'], ['Strict-Transport-Security']]);
});

test("add-headers in the http block, proxy-set-headers in every proxied location (replacing Portico's own of the same name)", () => {
  const { tree, http, web, grpc } = rendered(
    scenario(
      { proxyAddOriginalUriHeader: true },
      {
        response: [
          ['X-Frame-Options', 'DENY'],
          ['X-Served-By', '$hostname'],
        ],
        request: [
          ['x-forwarded-for', 'overridden'],
          ['X-Request-Start', 't=${msec}'],
        ],
      },
    ),
  );
  assert.deepEqual(argsOf(http, 'more_set_headers'), [['X-Frame-Options: DENY'], ['X-Served-By: $hostname']]);
  for (const [block, module] of [
    [web, 'proxy'],
    [grpc, 'grpc'],
  ] as const) {
    const headers = requestHeaders(tree, block, module);
    assert.deepEqual(
      headers.filter(([name]) => name === 'X-Forwarded-For' || name === 'x-forwarded-for'),
      [['X-Forwarded-For', 'overridden']],
      module,
    );
    assert.deepEqual(headers.slice(-2), [
      ['X-Original-URI', '$request_uri'],
      ['X-Request-Start', 't=${msec}'],
    ]);
  }
});

test('underscores, invalid headers and the limits as set', () => {
  const { http } = rendered(
    scenario({
      enableUnderscoresInHeaders: true,
      ignoreInvalidHeaders: false,
      largeClientHeaderBuffers: { number: 2, size: '1k' },
      clientHeaderBufferSize: '512',
      http2MaxConcurrentStreams: 16,
      proxyHeadersHashMaxSize: 1024,
      proxyHeadersHashBucketSize: 128,
    }),
  );
  assert.deepEqual(argsOf(http, 'underscores_in_headers'), [['on']]);
  assert.deepEqual(argsOf(http, 'ignore_invalid_headers'), [['off']]);
  assert.deepEqual(argsOf(http, 'large_client_header_buffers'), [['2', '1k']]);
  assert.deepEqual(argsOf(http, 'client_header_buffer_size'), [['512']]);
  assert.deepEqual(argsOf(http, 'http2_max_concurrent_streams'), [['16']]);
  assert.deepEqual(argsOf(http, 'proxy_headers_hash_max_size'), [['1024']]);
  assert.deepEqual(argsOf(http, 'proxy_headers_hash_bucket_size'), [['128']]);
});

const BOUNDS: Array<Partial<GlobalSettings>> = [
  {},
  {
    largeClientHeaderBuffers: { number: 1, size: '512' },
    clientHeaderBufferSize: '1',
    http2MaxConcurrentStreams: 1,
    proxyHeadersHashMaxSize: 1,
    proxyHeadersHashBucketSize: 1,
  },
  {
    largeClientHeaderBuffers: { number: 1024, size: '64m' },
    clientHeaderBufferSize: '64m',
    http2MaxConcurrentStreams: 2 ** 31 - 1,
    proxyHeadersHashMaxSize: 2 ** 20,
    proxyHeadersHashBucketSize: 65536 - 64,
    enableUnderscoresInHeaders: true,
    ignoreInvalidHeaders: false,
    serverTokens: true,
    allowBackendServerHeader: true,
    proxyAddOriginalUriHeader: true,
    hideHeaders: ['X-Powered-By', 'X_A'],
  },
];

for (const [index, settings] of BOUNDS.entries()) {
  test(`nginx -t accepts the header keys at the model's bounds (${index})`, { skip: missingNginx }, async () => {
    const headers: GlobalHeaders = {
      response: [
        ['X-A', 'v'.repeat(2048)],
        ['X-B', '${host} "q" \\'],
      ],
      request: [
        ['X-C', ''],
        ['X-D', 't=${msec} $remote_addr'],
      ],
    };
    await nginxSyntaxCheck(renderNginxConf(scenario(settings, headers), context), context);
  });
}

test('nginx -t refuses what the model refuses (the bounds above can fail)', { skip: missingNginx }, async () => {
  const refusedByNginx: Array<Partial<GlobalSettings>> = [
    { largeClientHeaderBuffers: { number: 4, size: '511' } },
    { proxyHeadersHashBucketSize: 65536 },
    { proxyHeadersHashMaxSize: 0 },
  ];
  for (const settings of refusedByNginx) {
    await assert.rejects(nginxSyntaxCheck(renderNginxConf(scenario(settings), context), context), /nginx -t failed/);
  }
  const unknownVariable = scenario({}, { response: [], request: [['X-A', '$no_such_variable']] });
  await assert.rejects(nginxSyntaxCheck(renderNginxConf(unknownVariable, context), context), /unknown "no_such_variable" variable/);
});
