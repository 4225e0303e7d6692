// proxy-buffer-size, proxy-buffers-number, proxy-busy-buffers-size,
// proxy-max-temp-file-size, proxy-request-buffering, proxy-http-version and
// client-body-buffer-size: how nginx buffers a proxied request and its
// response (part of ingress-nginx's "proxy" group, and its clientbodybuffersize).
// Unset annotations take the ConfigMap's keys of the same names, which the http
// block renders (renderProxyTuning.ts), so the part exists only on Ingresses that set one.
// nginx refuses some combinations of valid sizes at load (checked with `nginx -t`
// in boundaryValues.test.ts): such a combination keeps the ConfigMap's buffers, with a warning.
import type { GlobalSettings } from '../settings/globalSettings.js';
import { integerParser, optionParser, type ValueParser } from '../settings/valueSyntax.js';
import { nginxSizeBytes } from '../settings/nginxLimits.js';
import type { AnnotationDefinition, AnnotationGroup, AnnotationIssue, AnnotationValues } from './annotationDefinition.js';

/** What a location with any of these annotations renders (the others from the ConfigMap). */
export interface ProxyTuning {
  /** `proxy-buffer-size`: the buffer for the response's header, and the size of each of the proxy_buffers. */
  bufferSize: string;
  /** `proxy-buffers-number`: how many buffers of bufferSize read the response body. */
  buffersNumber: number;
  /** `proxy-busy-buffers-size`; undefined: nginx's own (two buffers). */
  busyBuffersSize: string | undefined;
  /** `proxy-max-temp-file-size`: `0` turns temporary files off. */
  maxTempFileSize: string;
  /** `proxy-request-buffering`: `off` streams the request body to the backend as it arrives. */
  requestBuffering: 'on' | 'off';
  /** `proxy-http-version`. */
  httpVersion: '1.0' | '1.1';
  /** `client-body-buffer-size`: request bodies beyond it are written to a temporary file. */
  clientBodyBufferSize: string;
}

/** The ProxyTuning fields that nginx checks against each other. */
export type ProxyBufferSizes = Pick<ProxyTuning, 'bufferSize' | 'buffersNumber' | 'busyBuffersSize' | 'maxTempFileSize'>;

/**
 * nginx allocates a buffer of this size for every proxied request, and up to
 * buffers-number more: 64m is far beyond any header or read buffer worth having,
 * and keeps one Ingress from asking for gigabytes per request.
 */
const MAX_BUFFER_BYTES = 64n << 20n;
/** proxy_buffers needs at least 2; 1024 buffers of 64m is already more than any machine holds. */
const MAX_BUFFERS_NUMBER = 1024;

/**
 * A size nginx keeps in a size_t (ngx_parse_size: bytes, `k` or `m`, no `g`),
 * from 1 byte (nginx refuses a 0-byte buffer) to 64m.
 */
export const parseBufferSize: ValueParser<string> = (text) => {
  const bytes = /^[0-9]+[kKmM]?$/.test(text) ? nginxSizeBytes(text) : undefined;
  return bytes !== undefined && bytes >= 1n && bytes <= MAX_BUFFER_BYTES
    ? { ok: true, value: text }
    : { ok: false, expected: 'an nginx size such as 4k, 16k or 1m, from 1 to 64m (no g)' };
};

/** proxy_max_temp_file_size is a size_t too, but not allocated: any size ngx_parse_size takes (k or m, no g), `0` for none. */
export const parseTempFileSize: ValueParser<string> = (text) =>
  /^[0-9]+[kKmM]?$/.test(text) && nginxSizeBytes(text) !== undefined
    ? { ok: true, value: text }
    : { ok: false, expected: 'an nginx size such as 1024m or 0 (k or m, no g), at most 8796093022207m' };

export const parseBuffersNumber = integerParser(2, MAX_BUFFERS_NUMBER);

/** The ConfigMap's proxy-busy-buffers-size: `""` (ingress-nginx's default) leaves it to nginx. */
export const parseBusyBuffersSize: ValueParser<string | undefined> = (text) =>
  text === '' ? { ok: true, value: undefined } : parseBufferSize(text);

export const parseHttpVersion = optionParser(['1.0', '1.1'] as const);

export const parseOnOff = optionParser(['on', 'off'] as const);

/** Bytes of a size the parsers above accepted. */
function bytes(size: string): bigint {
  const value = nginxSizeBytes(size);
  if (value === undefined) throw new Error(`not an nginx size: ${size}`);
  return value;
}

/**
 * Why nginx would refuse these buffers (its proxy module's checks when it
 * merges a location; proxy_buffers' buffers are bufferSize each, as
 * ingress-nginx renders them), or undefined when it accepts them.
 */
export function proxyBufferProblem(sizes: ProxyBufferSizes): string | undefined {
  const buffer = bytes(sizes.bufferSize);
  // nginx's default busy size is two buffers.
  const busy = sizes.busyBuffersSize === undefined ? 2n * buffer : bytes(sizes.busyBuffersSize);
  const allButOne = BigInt(sizes.buffersNumber - 1) * buffer;
  const busyName = sizes.busyBuffersSize === undefined ? `two buffers (${2n * buffer} bytes)` : sizes.busyBuffersSize;
  if (busy < buffer) return `proxy-busy-buffers-size ${busyName} is smaller than proxy-buffer-size ${sizes.bufferSize}`;
  if (busy > allButOne) {
    return `proxy-busy-buffers-size ${busyName} is more than proxy-buffers-number ${sizes.buffersNumber} minus one buffers of proxy-buffer-size ${sizes.bufferSize}`;
  }
  const maxTemp = bytes(sizes.maxTempFileSize);
  if (maxTemp !== 0n && maxTemp < buffer) {
    return `proxy-max-temp-file-size ${sizes.maxTempFileSize} is neither 0 nor at least proxy-buffer-size ${sizes.bufferSize}`;
  }
  return undefined;
}

/** The ConfigMap's values of the same keys. */
export function proxyTuningSettings(settings: GlobalSettings): ProxyTuning {
  return {
    bufferSize: settings.proxyBufferSize,
    buffersNumber: settings.proxyBuffersNumber,
    busyBuffersSize: settings.proxyBusyBuffersSize,
    maxTempFileSize: settings.proxyMaxTempFileSize,
    requestBuffering: settings.proxyRequestBuffering,
    httpVersion: settings.proxyHttpVersion,
    clientBodyBufferSize: settings.clientBodyBufferSize,
  };
}

/** Risks are ingress-nginx's: each value is a size, a number or one of two words. */
const bufferSize: AnnotationDefinition<string> = { name: 'proxy-buffer-size', risk: 'Low', parse: parseBufferSize };
const buffersNumber: AnnotationDefinition<number> = { name: 'proxy-buffers-number', risk: 'Low', parse: parseBuffersNumber };
const busyBuffersSize: AnnotationDefinition<string> = { name: 'proxy-busy-buffers-size', risk: 'Low', parse: parseBufferSize };
const maxTempFileSize: AnnotationDefinition<string> = { name: 'proxy-max-temp-file-size', risk: 'Low', parse: parseTempFileSize };
const requestBuffering: AnnotationDefinition<'on' | 'off'> = { name: 'proxy-request-buffering', risk: 'Low', parse: parseOnOff };
const httpVersion: AnnotationDefinition<'1.0' | '1.1'> = { name: 'proxy-http-version', risk: 'Low', parse: parseHttpVersion };
const clientBodyBufferSize: AnnotationDefinition<string> = { name: 'client-body-buffer-size', risk: 'Low', parse: parseBufferSize };

const BUFFER_ANNOTATIONS: readonly AnnotationDefinition<unknown>[] = [bufferSize, buffersNumber, busyBuffersSize, maxTempFileSize];
const ANNOTATIONS: readonly AnnotationDefinition<unknown>[] = [...BUFFER_ANNOTATIONS, requestBuffering, httpVersion, clientBodyBufferSize];

/** The annotations' values over the ConfigMap's, as written (before the buffer check). */
function written(values: AnnotationValues, settings: GlobalSettings): ProxyTuning {
  const defaults = proxyTuningSettings(settings);
  return {
    bufferSize: values.get(bufferSize) ?? defaults.bufferSize,
    buffersNumber: values.get(buffersNumber) ?? defaults.buffersNumber,
    busyBuffersSize: values.get(busyBuffersSize) ?? defaults.busyBuffersSize,
    maxTempFileSize: values.get(maxTempFileSize) ?? defaults.maxTempFileSize,
    requestBuffering: values.get(requestBuffering) ?? defaults.requestBuffering,
    httpVersion: values.get(httpVersion) ?? defaults.httpVersion,
    clientBodyBufferSize: values.get(clientBodyBufferSize) ?? defaults.clientBodyBufferSize,
  };
}

export const proxyTuningAnnotations: AnnotationGroup<ProxyTuning | undefined> = {
  annotations: ANNOTATIONS,
  issues(values, settings): AnnotationIssue[] {
    const problem = proxyBufferProblem(written(values, settings));
    if (problem === undefined) return [];
    const reason = `nginx would refuse these buffers (${problem}); the ConfigMap's proxy buffers apply instead`;
    return BUFFER_ANNOTATIONS.filter((annotation) => values.get(annotation) !== undefined).map((annotation) => ({
      annotation,
      verdict: 'ignored',
      reason,
    }));
  },
  resolve(values, settings) {
    if (ANNOTATIONS.every((annotation) => values.get(annotation) === undefined)) return undefined;
    const tuning = written(values, settings);
    if (proxyBufferProblem(tuning) === undefined) return tuning;
    const defaults = proxyTuningSettings(settings);
    return {
      ...tuning,
      bufferSize: defaults.bufferSize,
      buffersNumber: defaults.buffersNumber,
      busyBuffersSize: defaults.busyBuffersSize,
      maxTempFileSize: defaults.maxTempFileSize,
    };
  },
};
