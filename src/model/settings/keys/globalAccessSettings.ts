// Global filters of who may reach any host, as ingress-nginx's "Global
// filters": block-cidrs (`deny` in the http block), block-user-agents and
// block-referers (maps of exact strings and `~` regexes, a match answers 403 in
// every server), and whitelist-source-range / denylist-source-range, the
// defaults of the annotations of the same names (ipAccessAnnotations.ts).
import { parseSourceRange } from '../../annotations/ipAccessAnnotations.js';
import { analyzePortableRegex } from '../portableRegex.js';
import type { SpecTable } from '../settingSpec.js';
import { quoteValue, type ParsedValue, type ValueParser } from '../valueSyntax.js';

/**
 * One entry of block-user-agents or block-referers: an exact string (nginx's
 * map compares it ignoring case), or a regex (`~` case-sensitive, `~*` not).
 */
export type BlockPattern =
  | { readonly kind: 'exact'; readonly value: string }
  | { readonly kind: 'regex'; readonly caseInsensitive: boolean; readonly pattern: string };

export interface GlobalAccessSettings {
  /** block-cidrs: addresses and CIDRs denied everywhere */
  blockCidrs: string[];
  /** block-user-agents */
  blockUserAgents: BlockPattern[];
  /** block-referers */
  blockReferers: BlockPattern[];
  /** whitelist-source-range: the allowlist of locations without the annotation */
  whitelistSourceRange: string[];
  /** denylist-source-range: the denylist of locations without the annotation */
  denylistSourceRange: string[];
}

export const GLOBAL_ACCESS_DEFAULTS: GlobalAccessSettings = {
  blockCidrs: [],
  blockUserAgents: [],
  blockReferers: [],
  whitelistSourceRange: [],
  denylistSourceRange: [],
};

/** As the annotations, but an empty value is the empty list (the key's default). */
export const parseSourceRangeList: ValueParser<string[]> = (text) => (text === '' ? { ok: true, value: [] } : parseSourceRange(text));

/** A User-Agent or Referer pattern is as long as a header pattern (portableRegex.ts). */
const MAX_PATTERN_LENGTH = 256;
/** An exact string: printable ASCII (what a header value holds), as long as a map key may sensibly be. */
const EXACT = /^[\x20-\x7e]{1,1024}$/;

/**
 * `\ ` is a space to PCRE and to JavaScript alike (ingress-nginx's own example
 * escapes the spaces of a User-Agent); the portable subset admits only
 * punctuation after `\`, so the check reads it as the space it is.
 */
function withSpacesUnescaped(pattern: string): string {
  return pattern.replace(/\\(.)/g, (escape, char: string) => (char === ' ' ? ' ' : escape));
}

export const parseBlockPattern: ValueParser<BlockPattern> = (text): ParsedValue<BlockPattern> => {
  if (!text.startsWith('~')) {
    // nginx removes one leading `\` (which makes `\~...` a string), so the string matched is what follows it.
    const value = text.startsWith('\\') ? text.slice(1) : text;
    return EXACT.test(value)
      ? { ok: true, value: { kind: 'exact', value } }
      : { ok: false, expected: 'printable ASCII of at most 1024 characters, or a "~" or "~*" regex' };
  }
  const caseInsensitive = text.startsWith('~*');
  const pattern = text.slice(caseInsensitive ? 2 : 1);
  if (pattern === '') return { ok: false, expected: 'a regex after "~" or "~*"' };
  const analysis = analyzePortableRegex(withSpacesUnescaped(pattern), MAX_PATTERN_LENGTH);
  if (!analysis.ok) return { ok: false, expected: `a regex PCRE and Portico read alike (${analysis.problem})` };
  return { ok: true, value: { kind: 'regex', caseInsensitive, pattern } };
};

/**
 * ingress-nginx's comma-separated list (entries trimmed, empty ones dropped).
 * A regex holding a comma cannot be written, there as here.
 */
export const parseBlockPatterns: ValueParser<BlockPattern[]> = (text) => {
  const patterns: BlockPattern[] = [];
  for (const entry of text.split(',')) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const parsed = parseBlockPattern(trimmed);
    if (!parsed.ok) return { ok: false, expected: `a comma-separated list; ${quoteValue(trimmed)} is not ${parsed.expected}` };
    patterns.push(parsed.value);
  }
  return { ok: true, value: patterns };
};

export const GLOBAL_ACCESS_SPECS: SpecTable<GlobalAccessSettings> = {
  blockCidrs: { key: 'block-cidrs', parse: parseSourceRangeList },
  blockUserAgents: { key: 'block-user-agents', parse: parseBlockPatterns },
  blockReferers: { key: 'block-referers', parse: parseBlockPatterns },
  whitelistSourceRange: { key: 'whitelist-source-range', parse: parseSourceRangeList },
  denylistSourceRange: { key: 'denylist-source-range', parse: parseSourceRangeList },
};
