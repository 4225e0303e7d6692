// Hostile values in the fields of proxy tuning and retries (proxy-buffer-size and
// its group, proxy-next-upstream*): see renderNginxConf.hostile.test.ts. The model
// refuses them (proxyTuningAnnotations.test.ts, nextUpstreamAnnotations.test.ts);
// the renderer refuses them again, as a size, a number or a closed keyword set.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { nextUpstreamSettings, type NextUpstream } from '../../../../src/model/annotations/nextUpstreamAnnotations.js';
import type { ProxyTuning } from '../../../../src/model/annotations/proxyTuningAnnotations.js';
import { DEFAULT_SETTINGS, type GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { configuration, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { appliedArgs, argsOf, locationOf, only, serverNamed } from './parsedTree.js';
import { HOSTILE_STRINGS, LONG, context, web } from './hostileValues.js';

const TUNED: ProxyTuning = {
  bufferSize: '16k',
  buffersNumber: 8,
  busyBuffersSize: '32k',
  maxTempFileSize: '0',
  requestBuffering: 'off',
  httpVersion: '1.0',
  clientBodyBufferSize: '1m',
};
const RETRIES: NextUpstream = { conditions: ['error', 'http_502', 'non_idempotent'], timeout: 7, tries: 2 };

function render(
  proxyTuning: ProxyTuning | undefined,
  nextUpstream: NextUpstream | undefined,
  settings: Partial<GlobalSettings> = {},
): string {
  return renderNginxConf(
    configuration({
      servers: [
        server('_', []),
        server('tuned.example', [location('/', 'prefix', web.name, { annotations: { proxyTuning, nextUpstream } })]),
      ],
      backends: [web],
      settings,
    }),
    context,
  );
}

describe('proxy tuning and retries in nginx.conf', () => {
  const rendered = render(TUNED, RETRIES);
  const tree = parseNginxConf(rendered);
  const tuned = locationOf(serverNamed(tree, 'tuned.example'), '/');

  test('a tuned location gets each value as one argument, the http block the ConfigMap defaults', () => {
    const http = only(tree, 'http');
    assert.deepEqual(argsOf(http, 'proxy_buffers'), [['4', '4k']]);
    assert.deepEqual(argsOf(http, 'client_body_buffer_size'), [['8k']]);
    assert.deepEqual(argsOf(tuned, 'proxy_buffer_size'), [['16k']]);
    assert.deepEqual(argsOf(tuned, 'proxy_buffers'), [['8', '16k']]);
    assert.deepEqual(argsOf(tuned, 'proxy_busy_buffers_size'), [['32k']]);
    assert.deepEqual(argsOf(tuned, 'proxy_max_temp_file_size'), [['0']]);
    assert.deepEqual(argsOf(tuned, 'proxy_request_buffering'), [['off']]);
    assert.deepEqual(argsOf(tuned, 'proxy_http_version'), [['1.0']]);
    assert.deepEqual(argsOf(tuned, 'client_body_buffer_size'), [['1m']]);
    assert.deepEqual(argsOf(tuned, 'proxy_next_upstream'), [['error', 'http_502', 'non_idempotent']]);
    assert.deepEqual(argsOf(tuned, 'proxy_next_upstream_timeout'), [['7s']]);
    assert.deepEqual(argsOf(tuned, 'proxy_next_upstream_tries'), [['2']]);
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(rendered, context);
  });

  test('a location without the annotations writes no buffer directive, and the ConfigMap retries', () => {
    const plainTree = parseNginxConf(render(undefined, undefined, { retryNonIdempotent: true }));
    const plain = locationOf(serverNamed(plainTree, 'tuned.example'), '/');
    for (const name of [
      'proxy_buffer_size',
      'proxy_buffers',
      'client_body_buffer_size',
      'proxy_request_buffering',
      'proxy_next_upstream_timeout',
    ]) {
      assert.deepEqual(argsOf(plain, name), [], name);
    }
    // Inherited from the http block (renderProxyInheritance.ts).
    assert.deepEqual(appliedArgs(plainTree, plain, 'proxy_next_upstream'), [
      nextUpstreamSettings({ ...DEFAULT_SETTINGS, retryNonIdempotent: true }).conditions,
    ]);
    assert.deepEqual(appliedArgs(plainTree, plain, 'proxy_http_version'), [['1.1']]);
  });

  test('hostile strings in every string field are refused by the renderer', () => {
    const sizes = ['bufferSize', 'busyBuffersSize', 'maxTempFileSize', 'clientBodyBufferSize'] as const;
    for (const value of [...HOSTILE_STRINGS, LONG, '4k;', '4k }', '']) {
      for (const field of sizes) {
        assert.throws(() => render({ ...TUNED, [field]: value }, undefined), /invalid size/, `${field} ${JSON.stringify(value)}`);
      }
      for (const field of ['requestBuffering', 'httpVersion'] as const) {
        assert.throws(
          () => render({ ...TUNED, [field]: value as 'on' }, undefined),
          /invalid keyword/,
          `${field} ${JSON.stringify(value)}`,
        );
      }
      assert.throws(
        () => render(undefined, { ...RETRIES, conditions: ['error', value as 'error'] }),
        /invalid keyword/,
        JSON.stringify(value),
      );
    }
    // The ConfigMap's values take the same path through the http block.
    assert.throws(() => render(undefined, undefined, { proxyBufferSize: HOSTILE_STRINGS[0] ?? '' }), /invalid size/);
    assert.throws(() => render(undefined, undefined, { proxyHttpVersion: '1.1; x' as '1.1' }), /invalid keyword/);
  });

  test('numbers that are not counts are refused', () => {
    for (const value of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => render({ ...TUNED, buffersNumber: value }, undefined), /invalid integer/, String(value));
      assert.throws(() => render(undefined, { ...RETRIES, tries: value }), /invalid integer/, String(value));
    }
    assert.throws(() => render(undefined, { ...RETRIES, timeout: 1.5 }), /invalid/);
  });

  test('gRPC locations get the retries under grpc_ and no proxy buffers', () => {
    const grpc = renderNginxConf(
      configuration({
        servers: [
          server('_', []),
          server('grpc.example', [
            location('/', 'prefix', web.name, { annotations: { backendProtocol: 'GRPC', proxyTuning: TUNED, nextUpstream: RETRIES } }),
          ]),
        ],
        backends: [web],
      }),
      context,
    );
    const block = locationOf(serverNamed(parseNginxConf(grpc), 'grpc.example'), '/');
    assert.deepEqual(argsOf(block, 'grpc_next_upstream'), [['error', 'http_502', 'non_idempotent']]);
    assert.deepEqual(argsOf(block, 'grpc_next_upstream_tries'), [['2']]);
    assert.deepEqual(argsOf(block, 'client_body_buffer_size'), [['1m']]);
    assert.deepEqual(argsOf(block, 'proxy_buffers'), []);
  });
});
