// The bounds a path must keep to be served, as a literal location or as a
// regex one (ingress-nginx's use-regex and rewrite-target), checked here so
// that nginx compiles whatever the model hands it: a path nginx refuses would
// fail the reload and freeze every other Ingress's changes.
import { analyzePortableRegex, portableRegexSyntax } from './settings/portableRegex.js';
import type { LocationAnnotations } from './types.js';

/**
 * Longest path served, in UTF-8 bytes. The renderer writes a path as one
 * quoted nginx token, which nginx caps at 4096 bytes; as an anchored rewrite
 * regex its escaping can triple it. No real path comes near.
 */
export const MAX_PATH_BYTES = 1024;

/** `$1`..`$9`, the captures a rewrite target refers to (nginx reads one digit after `$`). */
const CAPTURE_REFERENCE = /\$([1-9])/g;

/** Why the path cannot be served at all (whatever its host's mode), or undefined. */
export function pathLengthProblem(path: string): string | undefined {
  const bytes = Buffer.byteLength(path);
  return bytes > MAX_PATH_BYTES ? `is ${bytes} bytes long (at most ${MAX_PATH_BYTES})` : undefined;
}

/**
 * Why the path cannot be a regex location (and the regex of its rewrite), or
 * undefined. Only the subset PCRE and JavaScript read alike, so compiling here
 * predicts nginx: no named groups (a group named like an nginx variable,
 * `(?<proxy_upstream_name>...)`, would set that variable for the request),
 * no lookarounds or inline flags, no nested or alternating repetition (which
 * backtracks exponentially on a hostile request). Every capture the rewrite
 * target refers to must exist: nginx would silently substitute "".
 */
export function regexPathProblem(path: string, rewrite: Pick<LocationAnnotations['rewrite'], 'target'>): string | undefined {
  const analysis = analyzePortableRegex(path, MAX_PATH_BYTES);
  if (!analysis.ok) {
    return (
      `is served as a regular expression (use-regex or rewrite-target on its host), and ${analysis.problem}; ` +
      `expected ${portableRegexSyntax(MAX_PATH_BYTES)}`
    );
  }
  const highest = Math.max(0, ...[...(rewrite.target ?? '').matchAll(CAPTURE_REFERENCE)].map((match) => Number(match[1])));
  if (highest > analysis.captures) {
    return `has ${analysis.captures} capture group${analysis.captures === 1 ? '' : 's'} but its rewrite-target refers to $${highest}`;
  }
  return undefined;
}
