/** Escapes PCRE metacharacters so the pattern matches `value` itself only. */
export function escapeRegex(value: string): string {
  return value.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

/**
 * The backtracking steps one match of a user's regex may take. nginx leaves
 * PCRE2's default (10,000,000) and has no directive for it: a request that
 * makes a regex location backtrack then costs a worker ~30 ms even with JIT
 * (~200 ms without), 8 such clients stall every host. At this limit it costs
 * under 1 ms and gets a 500; ordinary patterns match 8 KiB paths in far fewer steps
 * (bench/regexBacktracking.ts).
 */
export const REGEX_MATCH_LIMIT = 100_000;

/**
 * The pattern with PCRE2's in-pattern match limit in front, which can only
 * lower the library's limit. The model admits no `(*` in a path (`*` would
 * repeat nothing), so a user cannot write one of these verbs.
 */
export function matchLimited(pattern: string): string {
  return `(*LIMIT_MATCH=${REGEX_MATCH_LIMIT})${pattern}`;
}

/** The pattern of a regex location (`~*`, case-insensitive), as ingress-nginx anchors it; also the pending route's (routes.lua). */
export function locationRegex(path: string): string {
  return matchLimited(`^${path}`);
}
