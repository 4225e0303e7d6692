import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzePortableRegex, parsePortableRegex } from '../../../src/model/settings/portableRegex.js';

const problemOf = (pattern: string): string => {
  const parsed = parsePortableRegex(pattern);
  assert.ok(!parsed.ok, `expected ${JSON.stringify(pattern)} to be refused`);
  return parsed.expected.slice(parsed.expected.lastIndexOf('; ') + 2);
};

test('the subset both PCRE and JavaScript read alike is accepted as written', () => {
  for (const pattern of [
    'always',
    '^(eu|us)-[0-9]+$',
    '^v\\d{1,3}\\.\\d+$',
    '(?:beta|canary)_[a-z]*',
    '[^,;]+',
    '[-a-z0-9_.]+',
    '[a-z\\d-]',
    '\\[x\\]\\{y\\}',
    'a+?b*?c??d{2}e{2,}?',
    '(\\d+)?',
    '((ab)?c)*',
    '.* with spaces',
    '()',
  ]) {
    assert.deepEqual(parsePortableRegex(pattern), { ok: true, value: pattern }, pattern);
  }
});

test('constructs the engines disagree on, or that only one has, are refused', () => {
  const cases: [pattern: string, problem: string][] = [
    ['(?=x)', 'lookarounds, named groups and inline flags are not supported'],
    ['(?<name>x)', 'lookarounds, named groups and inline flags are not supported'],
    ['(?i)x', 'lookarounds, named groups and inline flags are not supported'],
    ['(a)\\1', '"\\1" is not a supported escape'],
    ['\\bword', '"\\b" is not a supported escape'],
    ['\\x41', '"\\x" is not a supported escape'],
    ['\\p{L}', '"\\p" is not a supported escape'],
    ['a\\', '"\\" is not a supported escape'],
    ['[]a]', 'a class must not start with "]"'],
    ['[^]a]', 'a class must not start with "]"'],
    ['[[:alpha:]]', 'a "[" inside a class must be escaped'],
    ['[\\d-z]', 'a range in a class must not start at \\d, \\w or \\s'],
    ['[a-\\w]', 'a range in a class must not end at \\d, \\w or \\s'],
    ['x{,3}', 'a "{" that starts no quantifier {n}, {n,} or {n,m} must be escaped'],
    ['a{', 'a "{" that starts no quantifier'],
    ['a}', 'a literal "}" must be escaped'],
    ['a]', 'a literal "]" must be escaped'],
    ['a*+', 'the quantifier at offset 2 repeats nothing'],
    ['*a', 'the quantifier at offset 0 repeats nothing'],
    ['^*', 'the quantifier at offset 1 repeats nothing'],
    ['(|+)', 'the quantifier at offset 2 repeats nothing'],
    ['a{1001}', 'repetition counts stop at 1000'],
    ['(a', 'a "(" is not closed'],
    ['a)', 'a ")" closes no group'],
    ['[a', 'a "[" is not closed'],
    ['é', 'it has a character outside printable ASCII'],
    ['a'.repeat(257), 'it has 257 characters'],
  ];
  for (const [pattern, problem] of cases) {
    assert.ok(problemOf(pattern).startsWith(problem), `${JSON.stringify(pattern)}: ${problemOf(pattern)}`);
  }
});

test('nested repetition, which backtracks exponentially, is refused', () => {
  for (const pattern of ['(a+)+', '(a*)*', '(?:a|b+){2,}', '((a+))+', '(\\d+\\.)*x', '(a{2})+']) {
    assert.ok(problemOf(pattern).startsWith('a repeated group must not itself contain repetition'), pattern);
  }
  // Repeating at most once is not repetition.
  for (const pattern of ['(a+)?', '(a+){0,1}', '(a+){1}', '(a?)+']) {
    assert.equal(parsePortableRegex(pattern).ok, true, pattern);
  }
});

test('a repeated group with alternatives, which can split one input exponentially many ways, is refused', () => {
  for (const pattern of ['(a|aa)+$', '(?:a|b)*', '((a|b)c){2,}', '(x|)+']) {
    assert.ok(problemOf(pattern).startsWith('a repeated group must not itself contain repetition or "|"'), pattern);
  }
  for (const pattern of ['(a|b)?', '(/|$)(.*)', 'a|b+', '(?:a|b)c+']) {
    assert.equal(parsePortableRegex(pattern).ok, true, pattern);
  }
});

test('groups nest at most 32 deep (PCRE2 refuses 250)', () => {
  const nested = (depth: number) => `${'('.repeat(depth)}a${')'.repeat(depth)}`;
  assert.equal(parsePortableRegex(nested(32)).ok, true);
  assert.equal(problemOf(nested(33)), 'groups nest at most 32 deep');
});

test('the analysis counts capture groups, not (?:...) ones or parentheses in classes or escaped', () => {
  assert.deepEqual(analyzePortableRegex('/something(/|$)(.*)', 1024), { ok: true, captures: 2 });
  assert.deepEqual(analyzePortableRegex('(?:a)(b(c))[(]\\(', 1024), { ok: true, captures: 2 });
  assert.deepEqual(analyzePortableRegex('abc', 2), { ok: false, problem: 'it has 3 characters' });
});

test('what only compiling finds is refused with the engine message', () => {
  assert.match(problemOf('a{3,1}'), /numbers out of order/);
  assert.match(problemOf('[z-a]'), /[Rr]ange out of order/);
});
