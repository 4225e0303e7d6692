// The batches lua/portico/monitor.lua sends: the first line is the batch
// token (proof that our nginx sent it), then one JSON array, the records'
// fields one after another in RECORD_FIELDS order. Mostly raw nginx variable
// values (strings: the worker only copies them, the controller parses them);
// the status and the request time are numbers.

/** The order of a record's fields in a batch (lua/portico/monitor.lua writes them in this order). */
export const RECORD_FIELDS = [
  'host',
  'namespace',
  'ingress',
  'service',
  'canary',
  'path',
  'method',
  'status',
  'requestLength',
  'requestTime',
  'bytesSent',
  'upstreamConnectTime',
  'upstreamHeaderTime',
  'upstreamResponseTime',
] as const;

/** What nginx tells about one request; a number is undefined when nginx had no value (no upstream, say). */
export interface RequestRecord {
  host: string;
  namespace: string;
  ingress: string;
  service: string;
  /** $proxy_alternative_upstream_name: the canary backend that served the request, or ''. */
  canary: string;
  path: string;
  method: string;
  status: string;
  requestLength: number | undefined;
  requestTime: number | undefined;
  bytesSent: number | undefined;
  upstreamConnectTime: number | undefined;
  upstreamHeaderTime: number | undefined;
  upstreamResponseTime: number | undefined;
}

export type DecodedBatch =
  { readonly ok: true; readonly records: RequestRecord[]; readonly malformed: number } | { readonly ok: false; readonly error: string };

/** Longer than any host name, Kubernetes name, Ingress path or nginx number: such a record is not nginx's. */
const MAX_FIELD_LENGTH = 4096;

export function decodeBatch(payload: string, token: string): DecodedBatch {
  const newline = payload.indexOf('\n');
  if (newline < 0 || payload.slice(0, newline) !== token) return { ok: false, error: 'missing or wrong batch token' };
  let fields: unknown;
  try {
    fields = JSON.parse(payload.slice(newline + 1));
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  if (!Array.isArray(fields)) return { ok: false, error: 'not a JSON array' };
  if (fields.length % RECORD_FIELDS.length !== 0) {
    return { ok: false, error: `${fields.length} fields is not a whole number of ${RECORD_FIELDS.length}-field records` };
  }
  const records: RequestRecord[] = [];
  let malformed = 0;
  for (let start = 0; start < fields.length; start += RECORD_FIELDS.length) {
    const record = recordAt(fields, start);
    if (record) records.push(record);
    else malformed++;
  }
  return { ok: true, records, malformed };
}

function recordAt(fields: readonly unknown[], start: number): RequestRecord | undefined {
  for (let i = start; i < start + RECORD_FIELDS.length; i++) {
    const value = fields[i];
    const valid = typeof value === 'string' ? value.length <= MAX_FIELD_LENGTH : typeof value === 'number' && Number.isFinite(value);
    if (!valid) return undefined;
  }
  // Checked above: every field of the record is a string or a finite number.
  const f = fields as readonly (string | number)[];
  const s = start;
  return {
    host: label(f[s]!),
    namespace: label(f[s + 1]!),
    ingress: label(f[s + 2]!),
    service: label(f[s + 3]!),
    canary: label(f[s + 4]!),
    path: label(f[s + 5]!),
    method: label(f[s + 6]!),
    status: label(f[s + 7]!),
    requestLength: quantity(f[s + 8]!),
    requestTime: quantity(f[s + 9]!),
    bytesSent: quantity(f[s + 10]!),
    upstreamConnectTime: quantity(f[s + 11]!),
    upstreamHeaderTime: quantity(f[s + 12]!),
    upstreamResponseTime: quantity(f[s + 13]!),
  };
}

function label(value: string | number): string {
  return typeof value === 'string' ? value : String(value);
}

function quantity(value: string | number): number | undefined {
  if (typeof value === 'string') return nginxNumber(value);
  return value >= 0 ? value : undefined;
}

const NUMBER = /^\d+(?:\.\d+)?$/;

/**
 * An nginx number variable. `$upstream_*_time` lists one value per upstream
 * attempt (`0.004, 0.002`; ` : ` across internal redirects; `-` for an attempt
 * without one): the request's time is their sum. ingress-nginx drops such
 * requests from its upstream histograms instead.
 */
export function nginxNumber(text: string): number | undefined {
  if (NUMBER.test(text)) return Number(text);
  let sum: number | undefined;
  for (const part of text.split(/[,:]/)) {
    const trimmed = part.trim();
    if (NUMBER.test(trimmed)) sum = (sum ?? 0) + Number(trimmed);
  }
  return sum;
}
