import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import { HOSTILE_STRINGS } from '../../dataplane/nginx/render/hostileValues.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

test("ingress-nginx's defaults", () => {
  assert.equal(DEFAULT_SETTINGS.defaultType, 'text/html');
  assert.equal(DEFAULT_SETTINGS.enableAioWrite, true);
  assert.equal(DEFAULT_SETTINGS.serverNameHashMaxSize, 1024);
  assert.equal(DEFAULT_SETTINGS.serverNameHashBucketSize, 64);
  assert.equal(DEFAULT_SETTINGS.variablesHashBucketSize, 256);
  assert.equal(DEFAULT_SETTINGS.variablesHashMaxSize, 2048);
  assert.equal(DEFAULT_SETTINGS.mapHashBucketSize, 64);
  assert.equal(DEFAULT_SETTINGS.grpcBufferSizeKb, 0);
});

test('valid values, at the bounds', () => {
  const { settings, problems, unknownKeys } = parse({
    'default-type': 'application/octet-stream',
    'enable-aio-write': 'false',
    'server-name-hash-max-size': '1048576',
    'server-name-hash-bucket-size': '65472',
    'variables-hash-bucket-size': '64',
    'variables-hash-max-size': '512',
    'map-hash-bucket-size': '128',
    'grpc-buffer-size-kb': '65536',
  });
  assert.deepEqual([problems, unknownKeys], [[], []]);
  assert.deepEqual(
    [
      settings.defaultType,
      settings.enableAioWrite,
      settings.serverNameHashMaxSize,
      settings.serverNameHashBucketSize,
      settings.variablesHashBucketSize,
      settings.variablesHashMaxSize,
      settings.mapHashBucketSize,
      settings.grpcBufferSizeKb,
    ],
    ['application/octet-stream', false, 1048576, 65472, 64, 512, 128, 65536],
  );
});

test('values beyond the bounds keep the default and are reported', () => {
  for (const [key, value] of [
    ['default-type', 'text'],
    ['default-type', 'text/html text/plain'],
    ['default-type', ''],
    ['enable-aio-write', 'on'],
    ['server-name-hash-max-size', '0'],
    ['server-name-hash-max-size', '1048577'],
    ['server-name-hash-bucket-size', '63'],
    ['server-name-hash-bucket-size', '65473'],
    ['variables-hash-bucket-size', '32'],
    ['variables-hash-max-size', '511'],
    ['map-hash-bucket-size', '64k'],
    ['grpc-buffer-size-kb', '-1'],
    ['grpc-buffer-size-kb', '65537'],
    ['grpc-buffer-size-kb', '4k'],
  ] as const) {
    const { settings, problems } = parse({ [key]: value });
    assert.equal(problems.length, 1, `${key}: ${value}`);
    assert.ok(problems[0]?.startsWith(`ConfigMap key ${key}:`), problems[0]);
    assert.deepEqual(settings, DEFAULT_SETTINGS, `${key}: ${value}`);
  }
});

test('hostile strings are refused as default-type', () => {
  for (const value of [...HOSTILE_STRINGS, 'text/html; gzip on', 'text/html"', 'text/html}']) {
    assert.equal(parse({ 'default-type': value }).settings.defaultType, 'text/html', value);
  }
});
