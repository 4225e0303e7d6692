// Request and response headers, and the limits on request headers: the
// ConfigMap keys ingress-nginx's template renders in the http block
// (client_header_buffer_size, large_client_header_buffers, underscores_in_headers,
// proxy_hide_header...) and in every proxied location (proxy-set-headers,
// X-Original-URI). add-headers and proxy-set-headers name a ConfigMap of
// header → value; the model reads it (model/globalHeaders.ts).
import { parseBufferSize } from '../../annotations/proxyTuningAnnotations.js';
import { parseObjectReference } from '../../objectReference.js';
import { nginxSizeBytes } from '../nginxLimits.js';
import type { SpecTable } from '../settingSpec.js';
import { integerParser, listParser, parseBoolean, parseHeaderName, type ValueParser } from '../valueSyntax.js';

/** large_client_header_buffers: how many buffers a long request line or header may take, and their size. */
export interface LargeClientHeaderBuffers {
  number: number;
  size: string;
}

export interface HeaderSettings {
  /** hide-headers: upstream response headers never passed to the client */
  hideHeaders: string[];
  /** allow-backend-server-header: the backend's Server header instead of nginx's (only with server-tokens) */
  allowBackendServerHeader: boolean;
  /** add-headers: `namespace/name` of a ConfigMap of response headers added to every response */
  addHeaders: string | undefined;
  /** proxy-set-headers: `namespace/name` of a ConfigMap of request headers sent to every backend */
  proxySetHeaders: string | undefined;
  /** enable-underscores-in-headers */
  enableUnderscoresInHeaders: boolean;
  /** ignore-invalid-headers */
  ignoreInvalidHeaders: boolean;
  /** large-client-header-buffers (`4 8k`) */
  largeClientHeaderBuffers: LargeClientHeaderBuffers;
  /** client-header-buffer-size */
  clientHeaderBufferSize: string;
  /** http2-max-concurrent-streams */
  http2MaxConcurrentStreams: number;
  /** proxy-headers-hash-max-size */
  proxyHeadersHashMaxSize: number;
  /** proxy-headers-hash-bucket-size */
  proxyHeadersHashBucketSize: number;
  /** proxy-add-original-uri-header: X-Original-URI ($request_uri) upstream */
  proxyAddOriginalUriHeader: boolean;
}

export const HEADER_DEFAULTS: HeaderSettings = {
  hideHeaders: [],
  allowBackendServerHeader: false,
  addHeaders: undefined,
  proxySetHeaders: undefined,
  enableUnderscoresInHeaders: false,
  ignoreInvalidHeaders: true,
  largeClientHeaderBuffers: { number: 4, size: '8k' },
  clientHeaderBufferSize: '1k',
  http2MaxConcurrentStreams: 128,
  proxyHeadersHashMaxSize: 512,
  proxyHeadersHashBucketSize: 64,
  proxyAddOriginalUriHeader: false,
};

/**
 * ingress-nginx looks the ConfigMap up by the value as written, so only
 * `namespace/name` can name one; `""` names none.
 */
export const parseConfigMapKey: ValueParser<string | undefined> = (text) => {
  if (text === '') return { ok: true, value: undefined };
  const parsed = parseObjectReference(text);
  if (!parsed.ok || parsed.value.namespace === undefined) return { ok: false, expected: 'a ConfigMap as namespace/name' };
  return { ok: true, value: `${parsed.value.namespace}/${parsed.value.name}` };
};

/** nginx 1.22 on 64-bit refuses a large_client_header_buffers size below connection_pool_size (512). */
const MIN_LARGE_HEADER_BUFFER_BYTES = 512n;

/** 1024 buffers of 64m is already more than any machine holds (as proxy-buffers-number). */
const parseLargeBuffersNumber = integerParser(1, 1024);

/** `<number> <size>`: 1 to 1024 buffers of 512 bytes to 64m (proxy-buffer-size's bound). */
export const parseLargeClientHeaderBuffers: ValueParser<LargeClientHeaderBuffers> = (text) => {
  const expected = 'a number of buffers and their size, such as "4 8k": 1 to 1024 buffers of 512 to 64m (no g)';
  const [count, size, ...rest] = text.split(/\s+/);
  if (count === undefined || size === undefined || rest.length > 0) return { ok: false, expected };
  const number = parseLargeBuffersNumber(count);
  const bytes = parseBufferSize(size).ok ? nginxSizeBytes(size) : undefined;
  if (!number.ok || bytes === undefined || bytes < MIN_LARGE_HEADER_BUFFER_BYTES) return { ok: false, expected };
  return { ok: true, value: { number: number.value, size } };
};

/**
 * nginx refuses a 0 proxy_headers_hash_max_size, and a bucket of 65536 bytes
 * or more ("too large"); 2^20 entries is far beyond any header set.
 */
const parseHashMaxSize = integerParser(1, 2 ** 20);
const parseHashBucketSize = integerParser(1, 65536 - 64);

export const HEADER_SPECS: SpecTable<HeaderSettings> = {
  // ingress-nginx splits on "," and writes each name bare after proxy_hide_header.
  hideHeaders: { key: 'hide-headers', parse: listParser(',', parseHeaderName, 'header names') },
  allowBackendServerHeader: { key: 'allow-backend-server-header', parse: parseBoolean },
  addHeaders: { key: 'add-headers', parse: parseConfigMapKey },
  proxySetHeaders: { key: 'proxy-set-headers', parse: parseConfigMapKey },
  enableUnderscoresInHeaders: { key: 'enable-underscores-in-headers', parse: parseBoolean },
  ignoreInvalidHeaders: { key: 'ignore-invalid-headers', parse: parseBoolean },
  largeClientHeaderBuffers: { key: 'large-client-header-buffers', parse: parseLargeClientHeaderBuffers },
  clientHeaderBufferSize: { key: 'client-header-buffer-size', parse: parseBufferSize },
  // 0 makes nginx refuse every HTTP/2 stream; an int beyond that.
  http2MaxConcurrentStreams: { key: 'http2-max-concurrent-streams', parse: integerParser(1, 2 ** 31 - 1) },
  proxyHeadersHashMaxSize: { key: 'proxy-headers-hash-max-size', parse: parseHashMaxSize },
  proxyHeadersHashBucketSize: { key: 'proxy-headers-hash-bucket-size', parse: parseHashBucketSize },
  proxyAddOriginalUriHeader: { key: 'proxy-add-original-uri-header', parse: parseBoolean },
};
