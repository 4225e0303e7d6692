// access-log-params: the parameters nginx's access_log takes after the format
// (ngx_http_log_module): `buffer=<size>`, `flush=<time>`, `gzip[=<level>]`.
// `if=` is Portico's own (skip-access-log-urls), so it is not among them.
// The bounds are what `nginx -t` accepts (test/dataplane/nginx/render/renderLogging.test.ts).
import { nginxSizeBytes, nginxTimeMs } from './nginxLimits.js';
import type { ValueParser } from './valueSyntax.js';

export type AccessLogParameter =
  | { readonly name: 'buffer'; readonly size: string }
  | { readonly name: 'flush'; readonly time: string }
  | { readonly name: 'gzip'; readonly level: number | undefined };

/**
 * nginx refuses `buffer=0`; each worker holds the buffer of every access log
 * and a line waits in it until it is full or flushed, so beyond a few
 * megabytes a buffer only delays the log (nginx itself refuses 2g).
 */
export const MAX_ACCESS_LOG_BUFFER_BYTES = 16n * 1024n * 1024n;

const GZIP_LEVEL = /^[1-9]$/;

function parseParameter(word: string): AccessLogParameter | string {
  const [name = '', value] = word.split(/=(.*)/s, 2);
  switch (name) {
    case 'buffer': {
      const bytes = value === undefined ? undefined : nginxSizeBytes(value);
      return value !== undefined && bytes !== undefined && bytes >= 1n && bytes <= MAX_ACCESS_LOG_BUFFER_BYTES
        ? { name, size: value }
        : 'buffer=<size> from 1 byte to 16m';
    }
    case 'flush': {
      const ms = value === undefined ? undefined : nginxTimeMs(value);
      return value !== undefined && ms !== undefined && ms > 0 ? { name, time: value } : 'flush=<time> such as 5s or 1m, not 0';
    }
    case 'gzip':
      if (value === undefined) return { name, level: undefined };
      return GZIP_LEVEL.test(value) ? { name, level: Number(value) } : 'gzip or gzip=<level> from 1 to 9';
    default:
      return 'buffer=<size>, flush=<time> or gzip[=<level>]';
  }
}

/** A space-separated list of access_log parameters, each at most once; `flush` needs a buffer (`buffer` or `gzip`), as nginx says. */
export const parseAccessLogParameters: ValueParser<AccessLogParameter[]> = (text) => {
  const parameters: AccessLogParameter[] = [];
  for (const word of text.split(' ').filter((part) => part !== '')) {
    const parameter = parseParameter(word);
    if (typeof parameter === 'string') {
      return { ok: false, expected: `access_log parameters separated by spaces; ${JSON.stringify(word)} is not ${parameter}` };
    }
    if (parameters.some((seen) => seen.name === parameter.name)) {
      return { ok: false, expected: `each access_log parameter at most once; ${parameter.name} is given twice` };
    }
    parameters.push(parameter);
  }
  const names = new Set(parameters.map((parameter) => parameter.name));
  if (names.has('flush') && !names.has('buffer') && !names.has('gzip')) {
    return {
      ok: false,
      expected: 'access_log parameters where flush comes with buffer=<size> or gzip (nginx has nothing to flush otherwise)',
    };
  }
  return { ok: true, value: parameters };
};
