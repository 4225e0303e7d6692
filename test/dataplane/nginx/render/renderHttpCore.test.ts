// gzip, http-level tuning, the main context and the events block as the
// ConfigMap sets them (keys/compressionSettings.ts, httpTuningSettings.ts,
// workerSettings.ts, luaSharedDictSettings.ts): what is rendered at the
// defaults and with every key set, and that nginx -t takes both bounds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { RenderContext } from '../../../../src/dataplane/nginx/render/renderContext.js';
import { parseGlobalSettings } from '../../../../src/model/settings/parseGlobalSettings.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { argsOf, only } from './parsedTree.js';

const web = backend('app-web-80', [{ address: '127.0.0.1', port: 1 }]);

function render(configMap: Record<string, string>, context: RenderContext = testContext(), hostnames: string[] = ['a.example']): string {
  const parsed = parseGlobalSettings(configMap, { cpus: 2 });
  assert.deepEqual(parsed.problems, []);
  return renderNginxConf(
    configuration({
      settings: parsed.settings,
      servers: [server('_', []), ...hostnames.map((hostname) => server(hostname, [location('/', 'prefix', web.name)]))],
      backends: [web],
    }),
    context,
  );
}

function parts(conf: string): { main: ParsedDirective; events: ParsedDirective; http: ParsedDirective } {
  const tree = parseNginxConf(conf);
  const main = { name: '', args: [], children: tree } as unknown as ParsedDirective;
  return { main, events: only(tree, 'events'), http: only(tree, 'http') };
}

describe('at the defaults', () => {
  const { main, events, http } = parts(render({}));

  test('no gzip, as ingress-nginx', () => {
    assert.ok(!http.children?.some((directive) => directive.name.startsWith('gzip')));
  });

  test("ingress-nginx's http-level values", () => {
    assert.deepEqual(argsOf(http, 'default_type'), [['text/html']]);
    assert.deepEqual(argsOf(http, 'aio'), [['threads']]);
    assert.deepEqual(argsOf(http, 'aio_write'), [['on']]);
    assert.deepEqual(argsOf(http, 'server_names_hash_bucket_size'), [['64']]);
    assert.deepEqual(argsOf(http, 'server_names_hash_max_size'), [['1024']]);
    assert.deepEqual(argsOf(http, 'variables_hash_bucket_size'), [['256']]);
    assert.deepEqual(argsOf(http, 'variables_hash_max_size'), [['2048']]);
    assert.deepEqual(argsOf(http, 'map_hash_bucket_size'), [['64']]);
    assert.deepEqual(argsOf(http, 'grpc_buffer_size'), []);
    assert.deepEqual(argsOf(http, 'lua_shared_dict'), [
      ['portico_configuration', '64m'],
      ['portico_balancer_ewma', '10m'],
    ]);
  });

  test('multi_accept on, no CPU binding, no debug connection; worker_rlimit_nofile only when the limit is known', () => {
    assert.deepEqual(argsOf(events, 'multi_accept'), [['on']]);
    assert.deepEqual(argsOf(events, 'debug_connection'), []);
    assert.deepEqual(argsOf(main, 'worker_cpu_affinity'), []);
    assert.deepEqual(argsOf(main, 'worker_rlimit_nofile'), []);
  });
});

test('max-worker-open-files 0: the hard limit less 1024, at least 1024 (ingress-nginx); a value is taken as is', () => {
  const openFiles = (configMap: Record<string, string>, limit: number) =>
    argsOf(parts(render(configMap, testContext({ openFilesLimit: limit }))).main, 'worker_rlimit_nofile');
  assert.deepEqual(openFiles({}, 1048576), [['1047552']]);
  assert.deepEqual(openFiles({}, 1500), [['1024']]);
  assert.deepEqual(openFiles({ 'max-worker-open-files': '4096' }, 1048576), [['4096']]);
});

describe('with every key set', () => {
  const conf = render({
    'use-gzip': 'true',
    'gzip-level': '6',
    'gzip-min-length': '1000',
    'gzip-types': 'application/json text/css',
    'gzip-disable': 'MSIE [1-6]\\.',
    'default-type': 'application/octet-stream',
    'enable-aio-write': 'false',
    'server-name-hash-max-size': '4096',
    'server-name-hash-bucket-size': '128',
    'variables-hash-bucket-size': '512',
    'variables-hash-max-size': '4096',
    'map-hash-bucket-size': '128',
    'grpc-buffer-size-kb': '64',
    'enable-multi-accept': 'false',
    'max-worker-open-files': '65536',
    'worker-cpu-affinity': '01 10',
    'debug-connections': '10.0.0.0/8,::1',
    'lua-shared-dicts': 'configuration_data: 100, portico_balancer_ewma: 1m, my_plugin: 512k',
  });
  const { main, events, http } = parts(conf);

  test('gzip as ingress-nginx renders it', () => {
    assert.deepEqual(argsOf(http, 'gzip'), [['on']]);
    assert.deepEqual(argsOf(http, 'gzip_comp_level'), [['6']]);
    assert.deepEqual(argsOf(http, 'gzip_disable'), [['MSIE [1-6]\\.']]);
    assert.deepEqual(argsOf(http, 'gzip_http_version'), [['1.1']]);
    assert.deepEqual(argsOf(http, 'gzip_min_length'), [['1000']]);
    assert.deepEqual(argsOf(http, 'gzip_types'), [['application/json', 'text/css']]);
    assert.deepEqual(argsOf(http, 'gzip_proxied'), [['any']]);
    assert.deepEqual(argsOf(http, 'gzip_vary'), [['on']]);
  });

  test('the http-level keys', () => {
    assert.deepEqual(argsOf(http, 'default_type'), [['application/octet-stream']]);
    assert.deepEqual(argsOf(http, 'aio'), [['threads']]);
    assert.deepEqual(argsOf(http, 'aio_write'), []);
    assert.deepEqual(argsOf(http, 'server_names_hash_bucket_size'), [['128']]);
    assert.deepEqual(argsOf(http, 'server_names_hash_max_size'), [['4096']]);
    assert.deepEqual(argsOf(http, 'variables_hash_bucket_size'), [['512']]);
    assert.deepEqual(argsOf(http, 'variables_hash_max_size'), [['4096']]);
    assert.deepEqual(argsOf(http, 'map_hash_bucket_size'), [['128']]);
    assert.deepEqual(argsOf(http, 'grpc_buffer_size'), [['64k']]);
  });

  test("lua-shared-dicts: Portico's dicts only grow (also by the ingress-nginx name of their data), other names are added", () => {
    assert.deepEqual(argsOf(http, 'lua_shared_dict'), [
      ['portico_configuration', '102400k'],
      ['portico_balancer_ewma', '10m'],
      ['my_plugin', '512k'],
    ]);
  });

  test('the main context and events', () => {
    assert.deepEqual(argsOf(events, 'multi_accept'), [['off']]);
    assert.deepEqual(argsOf(events, 'debug_connection'), [['10.0.0.0/8'], ['::1']]);
    assert.deepEqual(argsOf(main, 'worker_cpu_affinity'), [['01', '10']]);
    assert.deepEqual(argsOf(main, 'worker_rlimit_nofile'), [['65536']]);
  });

  test('nginx -t accepts it', { skip: missingNginx }, async () => {
    assert.match(conf, /gzip on;/);
    await nginxSyntaxCheck(conf, testContext());
  });
});

test('server names raise the server-name-hash-* floors, as in ingress-nginx', () => {
  const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.example`;
  const { http } = parts(render({ 'server-name-hash-bucket-size': '64', 'server-name-hash-max-size': '1' }, testContext(), [long]));
  assert.deepEqual(argsOf(http, 'server_names_hash_bucket_size'), [['256']]);
  assert.deepEqual(argsOf(http, 'server_names_hash_max_size'), [['256']]);
});

const BOUNDS: Record<string, Record<string, string>> = {
  smallest: {
    'use-gzip': 'true',
    'gzip-level': '1',
    'gzip-min-length': '0',
    'gzip-types': '*',
    'gzip-disable': 'msie6',
    'server-name-hash-max-size': '1',
    'server-name-hash-bucket-size': '64',
    'variables-hash-bucket-size': '64',
    'variables-hash-max-size': '512',
    'map-hash-bucket-size': '64',
    'grpc-buffer-size-kb': '1',
    'max-worker-open-files': '1024',
    'worker-cpu-affinity': 'auto',
    'debug-connections': '127.0.0.1',
    'lua-shared-dicts': 'tiny: 12k',
  },
  largest: {
    'use-gzip': 'true',
    'gzip-level': '9',
    'gzip-min-length': '2147483647',
    'gzip-disable': `^${'(?:Mozilla|Opera)[0-9]* '.repeat(10)}`,
    'server-name-hash-max-size': '1048576',
    'server-name-hash-bucket-size': '65472',
    'variables-hash-bucket-size': '65472',
    'variables-hash-max-size': '1048576',
    'map-hash-bucket-size': '65472',
    'grpc-buffer-size-kb': '65536',
    'max-worker-open-files': '1048576',
    'worker-cpu-affinity': `auto ${'1'.repeat(1024)}`,
    'debug-connections': '::/0,0.0.0.0/0',
    'lua-shared-dicts': `huge: 200, ${'x'.repeat(64)}: 12k`,
  },
};

for (const [bound, configMap] of Object.entries(BOUNDS)) {
  test(`nginx -t accepts the ${bound} values the model takes`, { skip: missingNginx }, async () => {
    const context = testContext({ openFilesLimit: 20000 });
    const conf = render(configMap, context);
    // Each value is rendered (the check tests what the keys write, not the defaults).
    for (const [key, value] of Object.entries(configMap)) {
      // Booleans are not written as such, nor dict sizes (in kilobytes).
      const words = value.split(/[ ,:]+/).filter((part) => /^[0-9a-z*]+$/.test(part) && part !== 'true');
      for (const word of key === 'lua-shared-dicts' ? words.filter((part) => !/^[0-9]+k?$/.test(part)) : words) {
        assert.ok(conf.includes(word), `${key}: ${word} is rendered`);
      }
    }
    await nginxSyntaxCheck(conf, context);
  });
}
