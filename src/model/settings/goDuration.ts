// Go's time.ParseDuration, which ingress-nginx uses for duration flags and for
// the ConfigMap's proxy-protocol-header-timeout: one reader for both.

const NANOSECOND = 1e-6;
const MICROSECOND = 1e-3;
const UNITS_MS: Readonly<Record<string, number>> = {
  ns: NANOSECOND,
  us: MICROSECOND,
  µs: MICROSECOND, // U+00B5 micro sign
  μs: MICROSECOND, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
// A signed sequence of decimal numbers, each with a unit; `ms` comes before `m` so that "1ms" is not read as "1m" + "s".
const PART = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;
const DURATION = new RegExp(`^[+-]?(?:${PART.source})+$`);

/** Go duration syntax (`30s`, `1h30m`, `250ms`, `0`) to milliseconds, or undefined when it is not one. */
export function goDurationMs(text: string): number | undefined {
  if (/^[+-]?0$/.test(text)) return 0; // the one value Go accepts without a unit
  if (!DURATION.test(text)) return undefined;
  let milliseconds = 0;
  for (const [, amount, unit] of text.matchAll(PART)) milliseconds += Number(amount) * (UNITS_MS[unit ?? ''] ?? 0);
  return text.startsWith('-') ? -milliseconds : milliseconds;
}
