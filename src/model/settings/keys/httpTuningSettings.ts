// http-level tuning: the default MIME type, asynchronous file I/O, nginx's
// hash table sizes and gRPC's response buffer (renderHttpTuning.ts). The
// bounds are what nginx 1.22 loads Portico's configuration with
// (test/dataplane/nginx/render/httpTuning.bounds.test.ts).
import type { SpecTable } from '../settingSpec.js';
import { integerParser, parseBoolean, type ValueParser } from '../valueSyntax.js';
import { parseMimeType } from './compressionSettings.js';

export interface HttpTuningSettings {
  /** default-type: the Content-Type of a response nginx itself types when no extension in mime.types matches */
  defaultType: string;
  /** enable-aio-write: aio_write (files are read with `aio threads` always, as ingress-nginx) */
  enableAioWrite: boolean;
  /** server-name-hash-max-size, server-name-hash-bucket-size: floors; the server names raise them (serverNames.ts) */
  serverNameHashMaxSize: number;
  serverNameHashBucketSize: number;
  /** variables-hash-bucket-size, variables-hash-max-size */
  variablesHashBucketSize: number;
  variablesHashMaxSize: number;
  /** map-hash-bucket-size */
  mapHashBucketSize: number;
  /** grpc-buffer-size-kb: grpc_buffer_size in kilobytes; 0 keeps nginx's (one memory page) */
  grpcBufferSizeKb: number;
}

export const HTTP_TUNING_DEFAULTS: HttpTuningSettings = {
  defaultType: 'text/html',
  enableAioWrite: true,
  serverNameHashMaxSize: 1024,
  // ingress-nginx's default is the CPU's cache line; 64 on every machine Portico runs on.
  serverNameHashBucketSize: 64,
  variablesHashBucketSize: 256,
  variablesHashMaxSize: 2048,
  mapHashBucketSize: 64,
  grpcBufferSizeKb: 0,
};

/**
 * A hash bucket holds whole entries (nginx refuses to start when the longest
 * name does not fit one) and nginx refuses a bucket above 64 KiB less a cache
 * line; 64, the cache line, is the smallest every hash of Portico's fits.
 */
const MIN_BUCKET_SIZE = 64;
const MAX_BUCKET_SIZE = 65536 - 64;

/**
 * A hash's max_size is the most buckets nginx tries before it gives up; it
 * allocates two bytes per bucket tried at every reload, so 2^20 (2 MB) bounds
 * that while it is far beyond any real number of names. The smallest is the
 * smallest that holds Portico's own variables.
 */
const MAX_HASH_SIZE = 2 ** 20;
const MIN_VARIABLES_HASH_SIZE = 512;

/** grpc_buffer_size is allocated for every gRPC request: 64 MB, 16 times gRPC's default message limit. */
const MAX_GRPC_BUFFER_KB = 65536;

const parseBucketSize = integerParser(MIN_BUCKET_SIZE, MAX_BUCKET_SIZE, ' of bytes');

const parseGrpcBufferSize: ValueParser<number> = (text) => {
  const parsed = integerParser(0, MAX_GRPC_BUFFER_KB, ' of kilobytes')(text);
  return parsed.ok ? parsed : { ok: false, expected: `0 (nginx's default) or ${parsed.expected}` };
};

export const HTTP_TUNING_SPECS: SpecTable<HttpTuningSettings> = {
  defaultType: { key: 'default-type', parse: parseMimeType },
  enableAioWrite: { key: 'enable-aio-write', parse: parseBoolean },
  serverNameHashMaxSize: { key: 'server-name-hash-max-size', parse: integerParser(1, MAX_HASH_SIZE) },
  serverNameHashBucketSize: { key: 'server-name-hash-bucket-size', parse: parseBucketSize },
  variablesHashBucketSize: { key: 'variables-hash-bucket-size', parse: parseBucketSize },
  variablesHashMaxSize: { key: 'variables-hash-max-size', parse: integerParser(MIN_VARIABLES_HASH_SIZE, MAX_HASH_SIZE) },
  mapHashBucketSize: { key: 'map-hash-bucket-size', parse: parseBucketSize },
  grpcBufferSizeKb: { key: 'grpc-buffer-size-kb', parse: parseGrpcBufferSize },
};
