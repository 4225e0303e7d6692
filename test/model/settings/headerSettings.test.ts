import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { INGRESS_NGINX_CONFIGMAP_KEYS } from '../../../src/model/settings/ingressNginxConfigMapKeys.js';
import { globalHeaderConfigMaps, globalHeaderProblem, resolveGlobalHeaders } from '../../../src/model/globalHeaders.js';
import type { ConfigMap } from '../../../src/kube/objects.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

test("ingress-nginx's defaults (config.go NewDefault)", () => {
  assert.deepEqual(DEFAULT_SETTINGS.hideHeaders, []);
  assert.equal(DEFAULT_SETTINGS.allowBackendServerHeader, false);
  assert.equal(DEFAULT_SETTINGS.addHeaders, undefined);
  assert.equal(DEFAULT_SETTINGS.proxySetHeaders, undefined);
  assert.equal(DEFAULT_SETTINGS.enableUnderscoresInHeaders, false);
  assert.equal(DEFAULT_SETTINGS.ignoreInvalidHeaders, true);
  assert.deepEqual(DEFAULT_SETTINGS.largeClientHeaderBuffers, { number: 4, size: '8k' });
  assert.equal(DEFAULT_SETTINGS.clientHeaderBufferSize, '1k');
  assert.equal(DEFAULT_SETTINGS.http2MaxConcurrentStreams, 128);
  assert.equal(DEFAULT_SETTINGS.proxyHeadersHashMaxSize, 512);
  assert.equal(DEFAULT_SETTINGS.proxyHeadersHashBucketSize, 64);
  assert.equal(DEFAULT_SETTINGS.proxyAddOriginalUriHeader, false);
  // The defaults are those of the contract's table.
  const contract = new Map(INGRESS_NGINX_CONFIGMAP_KEYS.map((key) => [key.key, key.default]));
  assert.equal(contract.get('large-client-header-buffers'), '4 8k');
  assert.equal(contract.get('client-header-buffer-size'), '1k');
  assert.equal(contract.get('http2-max-concurrent-streams'), '128');
});

test('every header key parsed', () => {
  const { settings, problems, unknownKeys } = parse({
    'hide-headers': 'X-Powered-By, Server,,X_Internal',
    'allow-backend-server-header': 'true',
    'add-headers': 'ingress/response-headers',
    'proxy-set-headers': 'ingress/request-headers',
    'enable-underscores-in-headers': 'True',
    'ignore-invalid-headers': 'false',
    'large-client-header-buffers': '8  16k',
    'client-header-buffer-size': '64k',
    'http2-max-concurrent-streams': '64',
    'proxy-headers-hash-max-size': '1024',
    'proxy-headers-hash-bucket-size': '128',
    'proxy-add-original-uri-header': 'true',
  });
  assert.deepEqual([problems, unknownKeys], [[], []]);
  assert.deepEqual(settings.hideHeaders, ['X-Powered-By', 'Server', 'X_Internal']);
  assert.equal(settings.allowBackendServerHeader, true);
  assert.equal(settings.addHeaders, 'ingress/response-headers');
  assert.equal(settings.proxySetHeaders, 'ingress/request-headers');
  assert.equal(settings.enableUnderscoresInHeaders, true);
  assert.equal(settings.ignoreInvalidHeaders, false);
  assert.deepEqual(settings.largeClientHeaderBuffers, { number: 8, size: '16k' });
  assert.equal(settings.clientHeaderBufferSize, '64k');
  assert.equal(settings.http2MaxConcurrentStreams, 64);
  assert.equal(settings.proxyHeadersHashMaxSize, 1024);
  assert.equal(settings.proxyHeadersHashBucketSize, 128);
  assert.equal(settings.proxyAddOriginalUriHeader, true);
  assert.deepEqual(globalHeaderConfigMaps(settings), ['ingress/response-headers', 'ingress/request-headers']);
  assert.deepEqual(parse({ 'add-headers': '', 'proxy-set-headers': '' }).settings.addHeaders, undefined);
});

test('bad and hostile values keep the default, each reported with its key', () => {
  const refused: Record<string, string[]> = {
    'hide-headers': ['X-A;proxy_pass x', 'X A', 'X-A:', '"X-A"', 'X-A}'],
    'allow-backend-server-header': ['yes', 'on'],
    // ingress-nginx looks the value up as written: a bare name names no ConfigMap.
    'add-headers': ['headers', 'a/b/c', 'Ns/Name', 'ns/na me', 'ns/x;y', '../x'],
    'proxy-set-headers': ['headers', 'ns/', '/name'],
    'enable-underscores-in-headers': ['yes'],
    'ignore-invalid-headers': ['no'],
    // nginx -t refuses 0 buffers, and a size below connection_pool_size (512) or in g.
    'large-client-header-buffers': ['0 8k', '4 511', '4 1g', '4', '4 8k 2', '1025 8k', '4 65m', '-4 8k', '4 8k;'],
    'client-header-buffer-size': ['0', '1g', '65m', '1k;', 'x'],
    'http2-max-concurrent-streams': ['0', '-1', '2147483648', 'x'],
    'proxy-headers-hash-max-size': ['0', '1048577', '1e3'],
    'proxy-headers-hash-bucket-size': ['0', '65473', '65536'],
    'proxy-add-original-uri-header': ['2'],
  };
  for (const [key, values] of Object.entries(refused)) {
    for (const value of values) {
      const { settings, problems } = parse({ [key]: value });
      assert.equal(problems.length, 1, `${key}: ${value}`);
      assert.ok(problems[0]?.startsWith(`ConfigMap key ${key}: invalid value`), problems[0]);
      assert.deepEqual(settings, DEFAULT_SETTINGS, `${key}: ${value}`);
    }
  }
  for (const value of ['X-A\nproxy_pass x', 'X-A\u0000'])
    assert.match(parse({ 'hide-headers': value }).problems[0] ?? '', /control character/);
});

test('the bounds nginx -t accepts (renderHeaderSettings.test.ts runs it on them)', () => {
  const { settings, problems } = parse({
    'large-client-header-buffers': '1024 64m',
    'client-header-buffer-size': '1',
    'http2-max-concurrent-streams': '2147483647',
    'proxy-headers-hash-max-size': '1048576',
    'proxy-headers-hash-bucket-size': '65472',
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(settings.largeClientHeaderBuffers, { number: 1024, size: '64m' });
  assert.deepEqual(parse({ 'large-client-header-buffers': '1 512' }).settings.largeClientHeaderBuffers, { number: 1, size: '512' });
});

test('http2-max-field-size, http2-max-header-size, http2-max-requests: refused as obsolete in nginx 1.22, with the reason', () => {
  for (const key of ['http2-max-field-size', 'http2-max-header-size', 'http2-max-requests']) {
    const entry = INGRESS_NGINX_CONFIGMAP_KEYS.find((candidate) => candidate.key === key);
    assert.match(entry?.refusedBecause ?? '', /obsolete since nginx 1\.19\.7/, key);
    assert.ok(parse({ [key]: '16k' }).unknownKeys.includes(key));
  }
});

const configMaps = (data: Record<string, Record<string, string>>) => (key: string) =>
  data[key] === undefined ? undefined : ({ metadata: { name: key }, data: data[key] } as ConfigMap);

test('add-headers and proxy-set-headers: the ConfigMaps read, sorted; nothing when neither key is set', () => {
  const warnings: string[] = [];
  const resolved = resolveGlobalHeaders(
    { addHeaders: 'ingress/add', proxySetHeaders: 'ingress/set' },
    configMaps({
      'ingress/add': { 'X-B': 'two words', 'X-A': 'one' },
      'ingress/set': { 'X-Request-Start': 't=${msec}', 'X-Client': '$remote_addr', 'X-Empty': '' },
    }),
    warnings,
  );
  assert.deepEqual(warnings, []);
  assert.deepEqual(resolved, {
    globalHeaders: {
      response: [
        ['X-A', 'one'],
        ['X-B', 'two words'],
      ],
      request: [
        ['X-Client', '$remote_addr'],
        ['X-Empty', ''],
        ['X-Request-Start', 't=${msec}'],
      ],
    },
  });
  assert.deepEqual(resolveGlobalHeaders({ addHeaders: undefined, proxySetHeaders: undefined }, configMaps({}), warnings), {});
});

test('a missing ConfigMap gives no headers and a warning, as ingress-nginx; an entry nginx would refuse is left out with one', () => {
  const warnings: string[] = [];
  const resolved = resolveGlobalHeaders(
    { addHeaders: 'ingress/missing', proxySetHeaders: 'ingress/set' },
    configMaps({ 'ingress/set': { 'X-Good': 'ok', 'X Bad': 'v', 'X-Unknown': '$no_such_variable', 'X-Stray': 'a $ b' } }),
    warnings,
  );
  assert.deepEqual(resolved.globalHeaders, { response: [], request: [['X-Good', 'ok']] });
  assert.equal(warnings.length, 4);
  assert.match(warnings[0] ?? '', /^ConfigMap key add-headers: ConfigMap ingress\/missing not found/);
  assert.ok(warnings.slice(1).every((warning) => warning.startsWith('ConfigMap key proxy-set-headers: ConfigMap ingress/set: ')));
});

test('entry checks: header names as ingress-nginx, printable values, `$` only in references to variables nginx.conf has', () => {
  for (const [name, value] of [
    ['X-A', 'plain'],
    ['X_A', '${host}:$server_port'],
    ['X-A', '"quoted" \\ back;slash {braces} #hash'],
    ['X-A', 'v'.repeat(2048)],
  ] as const) {
    assert.equal(globalHeaderProblem(name, value), undefined, `${name}: ${value}`);
  }
  for (const [name, value] of [
    ['X-A:', 'v'],
    ['X-A;', 'v'],
    ['', 'v'],
    ['X-A', 'line\nssl_engine x;'],
    ['X-A', 'tab\t'],
    ['X-A', 'ünïcødé'],
    ['X-A', 'v'.repeat(2049)],
    ['X-A', '$'],
    ['X-A', '${'],
    ['X-A', '$1'],
    ['X-A', '${no_such}'],
  ] as const) {
    assert.notEqual(globalHeaderProblem(name, value), undefined, `${name}: ${value}`);
  }
});
