// The string syntaxes shared by ConfigMap values and annotation values: each
// parser either returns the typed value or says what it expected, so callers
// can name the key, the value and the expectation in one message.

import { MAX_TIMER_SECONDS, nginxSizeBytes, nginxTimeMs } from './nginxLimits.js';

export type ParsedValue<T> = { ok: true; value: T } | { ok: false; expected: string };
export type ValueParser<T> = (text: string) => ParsedValue<T>;

function accepted<T>(value: T): ParsedValue<T> {
  return { ok: true, value };
}

function refused<T>(expected: string): ParsedValue<T> {
  return { ok: false, expected };
}

/**
 * C0 controls (CR, LF, TAB, NUL...), DEL and C1 controls: never meaningful in
 * a value, and CR/LF split nginx directives (CVE-2024-7646).
 */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** Describes the first control character of `text` (without echoing the text), or undefined when there is none. */
export function describeControlCharacter(text: string): string | undefined {
  const match = CONTROL_CHARACTER.exec(text);
  if (!match) return undefined;
  const codePoint = match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  return `a control character (U+${codePoint} at offset ${match.index})`;
}

/** A value as shown in messages: truncated, and quoted with JSON escapes. */
export function quoteValue(text: string, maxLength = 64): string {
  return JSON.stringify(text.length > maxLength ? `${text.slice(0, maxLength)}...` : text);
}

/** Go's strconv.ParseBool, which ingress-nginx uses for both annotations and the ConfigMap. */
const BOOLEAN_WORDS: ReadonlyMap<string, boolean> = new Map([
  ...['1', 't', 'T', 'true', 'TRUE', 'True'].map((word) => [word, true] as const),
  ...['0', 'f', 'F', 'false', 'FALSE', 'False'].map((word) => [word, false] as const),
]);

export const parseBoolean: ValueParser<boolean> = (text) => {
  const value = BOOLEAN_WORDS.get(text);
  return value === undefined ? refused('"true" or "false"') : accepted(value);
};

/** A non-negative decimal integer in [min, max]; no sign, no exponent, no hex. */
export function integerParser(min: number, max: number, unit = ''): ValueParser<number> {
  const expected = `an integer${unit} from ${min} to ${max}`;
  return (text) => {
    if (!/^[0-9]{1,15}$/.test(text)) return refused(expected);
    const value = Number(text);
    return value >= min && value <= max ? accepted(value) : refused(expected);
  };
}

/** Whole seconds, as ingress-nginx's proxy and client timeouts (rendered with an `s` suffix); 0 allowed. */
export const parseSeconds = integerParser(0, MAX_TIMER_SECONDS, ' of seconds');

/** Whole seconds where 0 would break serving (a 0 s client or proxy timeout fails every request at once). */
export const parsePositiveSeconds = integerParser(1, MAX_TIMER_SECONDS, ' of seconds');

/** Counts and other plain numbers nginx stores in an int. */
export const parseNonNegativeInteger = integerParser(0, 2 ** 31 - 1);

/** A value matching `pattern` (which must be anchored). */
export function patternParser(pattern: RegExp, expected: string): ValueParser<string> {
  return (text) => (pattern.test(text) ? accepted(text) : refused(expected));
}

/** nginx size (`ngx_parse_offset`): bytes, or k/m/g multiples, up to 2^63 - 1 bytes; `0` often means unlimited. */
export const parseNginxSize: ValueParser<string> = (text) =>
  nginxSizeBytes(text) !== undefined ? accepted(text) : refused('an nginx size such as 1m, 512k or 0, at most 8589934591g');

/**
 * nginx time (`ngx_parse_time`) with a single unit, such as 240s or 1h; a bare
 * number is seconds; at most 2^31 - 1 ms (24 days). nginx also takes `1h30m`; the
 * renderer does not, so neither do we. No `M` or `y`: nginx refuses them for
 * millisecond directives, which every time Portico renders is.
 */
export const parseNginxTime: ValueParser<string> = (text) =>
  nginxTimeMs(text) !== undefined ? accepted(text) : refused('an nginx time such as 240s, 500ms or 1h, at most 24d');

/** A URL path without query, fragment or `;` (so it is also safe as a cookie Path attribute). */
export const parseUrlPath = patternParser(/^\/[A-Za-z0-9._~%:@+/-]*$/, 'a URL path starting with "/"');

/**
 * A subset of the HTTP token characters: nginx and Lua read a request header
 * as the variable `$http_<name>`, which only letters, digits, "-" and "_" survive.
 */
export const parseHeaderName = patternParser(/^[A-Za-z0-9_-]{1,256}$/, 'an HTTP header name of letters, digits, "-" and "_"');

/** RFC 6265's cookie-name (an HTTP token): nothing that could end the name or start an attribute. */
export const parseCookieName = patternParser(
  /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$/,
  'a cookie name of letters, digits and "!#$%&\'*+-.^_`|~"',
);

/** One of `options`; with `caseInsensitive` the value is matched ignoring case and returned as spelled in `options`. */
export function optionParser<T extends string>(options: readonly T[], caseInsensitive = false): ValueParser<T> {
  const expected = `one of ${options.join(', ')}`;
  const fold = (text: string) => (caseInsensitive ? text.toLowerCase() : text);
  return (text) => {
    const option = options.find((candidate) => fold(candidate) === fold(text));
    return option === undefined ? refused(expected) : accepted(option);
  };
}

/** A `separator`-separated list; items are trimmed and empty items dropped, so `""` is the empty list. */
export function listParser<T>(separator: string, item: ValueParser<T>, itemDescription: string): ValueParser<T[]> {
  const list = `a ${separator === ' ' ? 'space' : `"${separator}"`}-separated list of ${itemDescription}`;
  return (text) => {
    const values: T[] = [];
    for (const part of text.split(separator)) {
      const trimmed = part.trim();
      if (trimmed === '') continue;
      const parsed = item(trimmed);
      if (!parsed.ok) return refused(`${list}; ${quoteValue(trimmed)} is not ${parsed.expected}`);
      values.push(parsed.value);
    }
    return accepted(values);
  };
}

/** Accepts any text; for free-form values whose only rule is the caller's control-character check. */
export const parseAnyText: ValueParser<string> = accepted;
