// User regular expressions that the data plane runs with PCRE (nginx's regex
// locations and rewrites, ngx.re) while Portico can only compile them in
// JavaScript. Only a subset both engines read alike is admitted, so that
// compiling here predicts compiling there, and a repeated group holding
// repetition or alternation, which can backtrack exponentially on a hostile
// header or path, is refused.
import type { ValueParser } from './valueSyntax.js';

/** Header patterns (canary-by-header-pattern). */
const MAX_PATTERN_LENGTH = 256;
/** PCRE caps repetition counts at 65535; no header pattern needs more than this. */
const MAX_REPEAT = 1000;
/** PCRE2 refuses groups nested deeper than 250 (its parens_nest_limit); no pattern needs more than this. */
const MAX_DEPTH = 32;

/** What the subset admits, for messages. */
export function portableRegexSyntax(maxLength: number): string {
  return (
    `a regular expression of at most ${maxLength} printable ASCII characters, using only literals, ".", ` +
    'classes [...], groups (...) and (?:...), "|", "^", "$", the quantifiers * + ? {n} {n,} {n,m} (optionally lazy), ' +
    'and the escapes \\d \\D \\w \\W \\s \\S or "\\" before punctuation'
  );
}

const CLASS_ESCAPES = new Set('dDwWsS');
const PUNCTUATION = /^[!-/:-@[-`{-~]$/;
/** `{,n}` is a quantifier to recent PCRE and a literal to JavaScript, so it does not match here. */
const QUANTIFIER = /^(?:[*+?]|\{(\d{1,4})(,(\d{1,4})?)?\})\??/;

export const parsePortableRegex: ValueParser<string> = (text) => {
  const analysis = analyzePortableRegex(text, MAX_PATTERN_LENGTH);
  if (analysis.ok) return { ok: true, value: text };
  return { ok: false, expected: `${portableRegexSyntax(MAX_PATTERN_LENGTH)}; ${analysis.problem}` };
};

/** A pattern of the subset and its number of capture groups (`$1`.. a replacement may use), or what is wrong with it. */
export type RegexAnalysis = { ok: true; captures: number } | { ok: false; problem: string };

export function analyzePortableRegex(text: string, maxLength: number): RegexAnalysis {
  const parsed = portabilityProblem(text, maxLength);
  if (typeof parsed === 'string') return { ok: false, problem: parsed };
  const problem = compileProblem(text);
  return problem === undefined ? { ok: true, captures: parsed } : { ok: false, problem };
}

/** What a quantifier would apply to. */
type Operand = { kind: 'none' } | { kind: 'atom' } | { kind: 'group'; repeats: boolean };

interface Group {
  /**
   * Something inside repeats, or alternates: repeating the group too would let
   * the engine split one input among the iterations in exponentially many ways.
   */
  repeats: boolean;
}

/** The number of capture groups, or what puts the pattern outside the subset. */
function portabilityProblem(text: string, maxLength: number): number | string {
  if (text.length > maxLength) return `it has ${text.length} characters`;
  if (!/^[\x20-\x7e]*$/.test(text)) return 'it has a character outside printable ASCII';
  const groups: Group[] = [{ repeats: false }];
  let operand: Operand = { kind: 'none' };
  let captures = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    const group = groups[groups.length - 1]!;
    if (char === '\\') {
      const problem = escapeProblem(text[index + 1] ?? '');
      if (problem !== undefined) return problem;
      operand = { kind: 'atom' };
      index += 2;
    } else if (char === '[') {
      const end = classEnd(text, index);
      if (typeof end === 'string') return end;
      operand = { kind: 'atom' };
      index = end;
    } else if (char === '(') {
      const nonCapturing = text[index + 1] === '?';
      if (nonCapturing && text[index + 2] !== ':') return 'lookarounds, named groups and inline flags are not supported';
      if (groups.length > MAX_DEPTH) return `groups nest at most ${MAX_DEPTH} deep`;
      if (!nonCapturing) captures += 1;
      groups.push({ repeats: false });
      operand = { kind: 'none' };
      index += nonCapturing ? 3 : 1;
    } else if (char === ')') {
      if (groups.length === 1) return 'a ")" closes no group';
      groups.pop();
      groups[groups.length - 1]!.repeats ||= group.repeats;
      operand = { kind: 'group', repeats: group.repeats };
      index += 1;
    } else if ('*+?{'.includes(char)) {
      const quantifier = QUANTIFIER.exec(text.slice(index));
      if (!quantifier) return 'a "{" that starts no quantifier {n}, {n,} or {n,m} must be escaped';
      if (operand.kind === 'none') return `the quantifier at offset ${index} repeats nothing`;
      const [token, min, comma, max] = quantifier;
      if (Number(min ?? 0) > MAX_REPEAT || Number(max ?? 0) > MAX_REPEAT) return `repetition counts stop at ${MAX_REPEAT}`;
      const unbounded = '*+'.includes(char) || (comma !== undefined && max === undefined);
      const repeats = unbounded || (char === '{' && Number(max ?? min) > 1);
      if (repeats && operand.kind === 'group' && operand.repeats) {
        return 'a repeated group must not itself contain repetition or "|" (it can backtrack exponentially)';
      }
      group.repeats ||= repeats;
      operand = { kind: 'none' };
      index += token.length;
    } else if (char === ']' || char === '}') {
      return `a literal "${char}" must be escaped`;
    } else {
      // Anchors and "|" leave nothing to repeat; "." and literals do.
      operand = '^$|'.includes(char) ? { kind: 'none' } : { kind: 'atom' };
      if (char === '|') group.repeats = true;
      index += 1;
    }
  }
  return groups.length > 1 ? 'a "(" is not closed' : captures;
}

/** Letters and digits after "\" mean different things to each engine (or are backreferences), except the classes. */
function escapeProblem(escaped: string): string | undefined {
  return CLASS_ESCAPES.has(escaped) || PUNCTUATION.test(escaped) ? undefined : `"\\${escaped}" is not a supported escape`;
}

/**
 * The index after the class starting at `start`, or what is wrong with it.
 * A "]" first, a "[" inside and a range to or from \d, \w or \s mean
 * different things (or nothing) in PCRE and JavaScript.
 */
function classEnd(text: string, start: number): number | string {
  let index = start + 1;
  if (text[index] === '^') index += 1;
  if (text[index] === ']') return 'a class must not start with "]" (escape it as "\\]")';
  let previous: 'none' | 'literal' | 'classEscape' | 'rangeDash' = 'none';
  while (index < text.length && text[index] !== ']') {
    const char = text[index]!;
    if (char === '[') return 'a "[" inside a class must be escaped';
    if (char === '\\') {
      const escaped = text[index + 1] ?? '';
      const problem = escapeProblem(escaped);
      if (problem !== undefined) return problem;
      const isClassEscape = CLASS_ESCAPES.has(escaped);
      if (isClassEscape && previous === 'rangeDash') return 'a range in a class must not end at \\d, \\w or \\s';
      previous = isClassEscape ? 'classEscape' : 'literal';
      index += 2;
    } else if (char === '-' && previous !== 'none' && text[index + 1] !== ']') {
      if (previous === 'classEscape') return 'a range in a class must not start at \\d, \\w or \\s';
      previous = 'rangeDash';
      index += 1;
    } else {
      previous = 'literal';
      index += 1;
    }
  }
  return index < text.length ? index + 1 : 'a "[" is not closed';
}

/** What the subset check cannot see, such as ranges or counts out of order. */
function compileProblem(text: string): string | undefined {
  try {
    new RegExp(text);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
