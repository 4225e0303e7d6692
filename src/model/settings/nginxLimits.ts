// What nginx 1.22 accepts for the sizes and times Portico renders, measured
// with `nginx -t` (test/dataplane/nginx/render/boundaryValues.test.ts
// renders every setting at these bounds). Shared by the model, which refuses
// a value beyond them, and the renderer, which never writes one: nginx -t
// failing on one value refuses every later configuration.

/**
 * ngx_parse_offset: the byte count must fit in off_t (2^63 - 1), whatever
 * the unit (`8589934591g` passes, `8589934592g` fails).
 */
const MAX_OFFSET_BYTES = 2n ** 63n - 1n;

/** Up to 15 digits and one unit, nothing else: the renderer writes what matches unquoted (arguments.ts). */
const SIZE = /^([0-9]{1,15})([kKmMgG]?)$/;
const SIZE_UNIT_SHIFT: Readonly<Record<string, bigint>> = { '': 0n, k: 10n, m: 20n, g: 30n };

/** The bytes of an nginx size (`0`, `512k`, `1m`, `2G`), or undefined when nginx's ngx_parse_offset would refuse it. */
export function nginxSizeBytes(text: string): bigint | undefined {
  const [, digits, unit = ''] = SIZE.exec(text) ?? [];
  if (digits === undefined) return undefined;
  const bytes = BigInt(digits) << (SIZE_UNIT_SHIFT[unit.toLowerCase()] ?? 0n);
  return bytes <= MAX_OFFSET_BYTES ? bytes : undefined;
}

/**
 * Timers are kept in ngx_msec_t, compared as its signed difference: 2^31 - 1 ms
 * (24.8 days) is safe on every build, 32-bit ones included (on 64-bit nginx
 * takes more, which Portico does not rely on).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The largest whole number of seconds a timer holds. */
export const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/**
 * ngx_parse_time's units for millisecond directives (every time Portico
 * renders): `M` (month) and `y` (year) are refused there, only the seconds
 * directives take them.
 */
const TIME_UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** Digits and one unit, nothing else (as SIZE). */
const TIME = /^([0-9]{1,10})(ms|[wdhms])?$/;

/** Milliseconds of a single-unit nginx time (`240s`, `500ms`, `1h`; a bare number is seconds), or undefined beyond MAX_TIMER_MS. */
export function nginxTimeMs(text: string): number | undefined {
  const [, digits, unit = 's'] = TIME.exec(text) ?? [];
  if (digits === undefined) return undefined;
  const ms = Number(digits) * (TIME_UNIT_MS[unit] ?? 1000);
  return ms <= MAX_TIMER_MS ? ms : undefined;
}

/**
 * An upstream's `keepalive` (upstream-keepalive-connections, auth-keepalive):
 * idle connections each worker keeps; nginx allocates a 152-byte cache entry
 * for each at every reload, before any is used (2^31 - 1 fails
 * `malloc(326417514344)`); 65536 is 10 MB.
 */
export const MAX_UPSTREAM_KEEPALIVE_CONNECTIONS = 65536;
