import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, parseNamed, PREFIX } from './annotationTestSupport.js';
import { HOSTILE_STRINGS } from '../../dataplane/nginx/render/hostileValues.js';

const tuning = (annotations: Record<string, string>, settings = {}) => accepted(annotations, settings).value.location.proxyTuning;

test('no proxy tuning annotation: no part (the http block has the ConfigMap values)', () => {
  assert.equal(tuning({}), undefined);
  assert.equal(tuning({ 'proxy-buffering': 'on' }), undefined);
});

test('one annotation: the others from the ConfigMap, ingress-nginx defaults', () => {
  assert.deepEqual(tuning({ 'proxy-http-version': '1.0' }), {
    bufferSize: '4k',
    buffersNumber: 4,
    busyBuffersSize: undefined,
    maxTempFileSize: '1024m',
    requestBuffering: 'on',
    httpVersion: '1.0',
    clientBodyBufferSize: '8k',
  });
  assert.deepEqual(tuning({ 'proxy-request-buffering': 'off' }, { proxyBufferSize: '8k', clientBodyBufferSize: '1m' }), {
    bufferSize: '8k',
    buffersNumber: 4,
    busyBuffersSize: undefined,
    maxTempFileSize: '1024m',
    requestBuffering: 'off',
    httpVersion: '1.1',
    clientBodyBufferSize: '1m',
  });
});

test('every annotation set', () => {
  assert.deepEqual(
    tuning({
      'proxy-buffer-size': '16k',
      'proxy-buffers-number': '8',
      'proxy-busy-buffers-size': '64k',
      'proxy-max-temp-file-size': '0',
      'proxy-request-buffering': 'off',
      'proxy-http-version': '1.1',
      'client-body-buffer-size': '1M',
    }),
    {
      bufferSize: '16k',
      buffersNumber: 8,
      busyBuffersSize: '64k',
      maxTempFileSize: '0',
      requestBuffering: 'off',
      httpVersion: '1.1',
      clientBodyBufferSize: '1M',
    },
  );
});

test('sizes nginx keeps in a size_t: 1 byte to 64m, k or m, no g', () => {
  for (const name of ['proxy-buffer-size', 'proxy-busy-buffers-size', 'client-body-buffer-size']) {
    for (const size of ['1', '4096', '4k', '8K', '1m', '64m', '65536k'])
      assert.ok(accepted({ [name]: size, 'proxy-buffers-number': '1024' }));
    for (const size of ['0', '1g', '65m', '65537k', '1.5k', '4kb', '-4k', 'k', '4 k', 'off', '4k;']) {
      assertRefusedWith({ [name]: size }, [name, 'from 1 to 64m']);
    }
  }
});

test('proxy-max-temp-file-size: any size ngx_parse_size takes (k or m, no g, at most 2^63 - 1 bytes, 15 digits), 0 turning temporary files off', () => {
  assert.equal(tuning({ 'proxy-max-temp-file-size': '8796093022207m' })?.maxTempFileSize, '8796093022207m');
  assert.equal(tuning({ 'proxy-max-temp-file-size': '999999999999999' })?.maxTempFileSize, '999999999999999');
  for (const size of ['1g', '8796093022208m', '1.5m', 'off']) {
    assertRefusedWith({ 'proxy-max-temp-file-size': size }, ['proxy-max-temp-file-size', 'no g']);
  }
});

test('proxy-buffers-number: 2 to 1024 (nginx needs at least 2)', () => {
  assert.equal(tuning({ 'proxy-buffers-number': '1024' })?.buffersNumber, 1024);
  for (const text of ['0', '1', '1025', '-4', '4.0', '0x4', 'four']) {
    assertRefusedWith({ 'proxy-buffers-number': text }, ['proxy-buffers-number', 'an integer from 2 to 1024']);
  }
});

test('proxy-http-version is 1.0 or 1.1, proxy-request-buffering on or off', () => {
  for (const text of ['2', '2.0', '1', 'HTTP/1.1', '1.1;']) assertRefusedWith({ 'proxy-http-version': text }, ['one of 1.0, 1.1']);
  for (const text of ['true', 'On', 'yes']) assertRefusedWith({ 'proxy-request-buffering': text }, ['one of on, off']);
});

test('hostile values are refused (never ignored, never passed on)', () => {
  const names = [
    'proxy-buffer-size',
    'proxy-buffers-number',
    'proxy-busy-buffers-size',
    'client-body-buffer-size',
    'proxy-max-temp-file-size',
  ];
  for (const name of [...names, 'proxy-http-version', 'proxy-request-buffering']) {
    for (const hostile of [...HOSTILE_STRINGS, '4k; ssl_engine x', '4k }', '1.1 ; include /etc/passwd']) {
      assert.equal(parseNamed({ [name]: hostile }).ok, false, `${name}: ${JSON.stringify(hostile)}`);
    }
  }
});

test('buffers nginx refuses together: a warning on each buffer annotation set, the ConfigMap buffers instead', () => {
  // Two buffers leave no room for nginx's default busy size (two buffers).
  const { value, warnings } = accepted({ 'proxy-buffers-number': '2', 'proxy-buffer-size': '8k', 'proxy-http-version': '1.0' });
  assert.deepEqual(value.location.proxyTuning, {
    bufferSize: '4k',
    buffersNumber: 4,
    busyBuffersSize: undefined,
    maxTempFileSize: '1024m',
    requestBuffering: 'on',
    httpVersion: '1.0',
    clientBodyBufferSize: '8k',
  });
  assert.equal(warnings.length, 2);
  for (const name of ['proxy-buffer-size', 'proxy-buffers-number']) {
    assert.ok(
      warnings.some((warning) => warning.startsWith(`annotation ${PREFIX}/${name}: nginx would refuse these buffers`)),
      warnings.join('\n'),
    );
  }
  // What nginx -t refuses (boundaryValues.test.ts): busy below one buffer, busy above all buffers but one, a temp file below one buffer.
  for (const annotations of <Record<string, string>[]>[
    { 'proxy-busy-buffers-size': '3k' },
    { 'proxy-busy-buffers-size': '13k' },
    { 'proxy-buffers-number': '3', 'proxy-busy-buffers-size': '9k' },
    { 'proxy-max-temp-file-size': '3k' },
  ]) {
    const result = accepted(annotations);
    assert.equal(result.value.location.proxyTuning?.bufferSize, '4k', JSON.stringify(annotations));
    assert.equal(result.warnings.length, Object.keys(annotations).length, JSON.stringify(annotations));
  }
  // And what it takes.
  for (const annotations of <Record<string, string>[]>[
    { 'proxy-buffers-number': '2', 'proxy-busy-buffers-size': '4k' },
    { 'proxy-buffers-number': '3', 'proxy-busy-buffers-size': '8k' },
    { 'proxy-max-temp-file-size': '4k' },
    { 'proxy-max-temp-file-size': '0' },
  ]) {
    assert.deepEqual(accepted(annotations).warnings, [], JSON.stringify(annotations));
  }
});

test('the ConfigMap busy size counts in the check', () => {
  const { value, warnings } = accepted({ 'proxy-buffer-size': '2k' }, { proxyBusyBuffersSize: '12k' });
  assert.equal(value.location.proxyTuning?.bufferSize, '4k');
  assert.equal(warnings.length, 1);
});
