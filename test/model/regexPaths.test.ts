// Regex paths are checked before nginx sees them: what PCRE would refuse,
// read differently or backtrack on exponentially is refused, naming the path,
// and costs the Ingress that wrote it only; ingress-nginx's usual patterns pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PATH_BYTES, pathLengthProblem, regexPathProblem } from '../../src/model/regexPaths.js';
import { accepted, build, ingress, locationsOf, problemsOf } from './modelTestSupport.js';

/** From ingress-nginx's documentation and e2e tests, and common practice. */
const LEGITIMATE: readonly [path: string, target?: string][] = [
  ['/something(/|$)(.*)', '/$2'],
  ['/api(/|$)(.*)', '/$2'],
  ['/api/v[0-9]+/(.*)', '/$1'],
  ['/(.*)', '/$1'],
  ['/.well-known/acme-challenge/(.*)'],
  ['/foo/bar/.+'],
  ['/foo/bar/bar'],
  ['/static/.*\\.(js|css|png)$'],
  ['/v1/(users|groups)/([0-9]+)', '/$2/$1'],
  ['/[A-Za-z]{2}/(?:docs|blog)/(.*)', '/$1'],
  ['/*'],
  ['/api/*'],
  ['/~user/\\d+'],
  ['/'],
];

test("ingress-nginx's usual regex paths pass, with the captures their targets use", () => {
  for (const [path, target] of LEGITIMATE) assert.equal(regexPathProblem(path, { target }), undefined, path);
});

test('named groups, which set the nginx variable they name (the proxy_upstream_name attack), are refused', () => {
  for (const path of ['/(?<proxy_upstream_name>[a-z0-9-]+)/(.*)', '/(?<host>x)', '/(?P<x>y)', "/(?'name'x)"]) {
    assert.match(regexPathProblem(path, {}) ?? '', /lookarounds, named groups and inline flags are not supported/, path);
  }
});

test('what PCRE refuses or reads differently from JavaScript is refused', () => {
  const cases: [path: string, problem: RegExp][] = [
    ['/(', /a "\(" is not closed/],
    ['/a)', /a "\)" closes no group/],
    ['/[a', /a "\[" is not closed/],
    ['/(?=x)y', /lookarounds/],
    ['/(?i)x', /inline flags/],
    ['/(a)\\1', /"\\1" is not a supported escape/],
    ['/x{,3}', /a "\{" that starts no quantifier/],
    [`/${'('.repeat(33)}a${')'.repeat(33)}`, /groups nest at most 32 deep/],
    ['/é', /outside printable ASCII/],
    ['/a{3,1}', /numbers out of order/],
  ];
  for (const [path, problem] of cases) {
    const found = regexPathProblem(path, {}) ?? '';
    assert.match(found, /^is served as a regular expression \(use-regex or rewrite-target on its host\), and /, path);
    assert.match(found, problem, path);
  }
});

test('repetition of a group that repeats or alternates (catastrophic backtracking) is refused', () => {
  for (const path of ['/(a+)+$', '/(a*)*b', '/(a|aa)+$', '/((ab)+c)*', '/(\\w+\\.)+x']) {
    assert.match(regexPathProblem(path, {}) ?? '', /a repeated group must not itself contain repetition or "\|"/, path);
  }
});

test('a rewrite target may refer only to captures the path has (nginx would substitute "")', () => {
  assert.equal(regexPathProblem('/something(/|$)(.*)', { target: '/$3' }), 'has 2 capture groups but its rewrite-target refers to $3');
  assert.equal(regexPathProblem('/plain', { target: '/x/$1' }), 'has 0 capture groups but its rewrite-target refers to $1');
  assert.equal(regexPathProblem('/(?:a|b)/(x)', { target: '/$2$1' }), 'has 1 capture group but its rewrite-target refers to $2');
  assert.equal(regexPathProblem('/plain', { target: '/other' }), undefined);
});

test(`paths stop at ${MAX_PATH_BYTES} bytes, counted in UTF-8, as literals and as regexes`, () => {
  assert.equal(pathLengthProblem(`/${'a'.repeat(MAX_PATH_BYTES - 1)}`), undefined);
  assert.equal(pathLengthProblem(`/${'a'.repeat(4000)}`), `is 4001 bytes long (at most ${MAX_PATH_BYTES})`);
  assert.equal(pathLengthProblem(`/${'é'.repeat(MAX_PATH_BYTES / 2)}`), `is ${MAX_PATH_BYTES + 1} bytes long (at most ${MAX_PATH_BYTES})`);
  assert.match(regexPathProblem(`/${'a'.repeat(MAX_PATH_BYTES)}`, {}) ?? '', new RegExp(`it has ${MAX_PATH_BYTES + 1} characters`));
});

test('in a snapshot, each hostile path costs its own location only: the others of the host and of other hosts are served', () => {
  const hostile = ['/(?<proxy_upstream_name>[a-z0-9-]+)/(.*)', '/(', '/(?<host>x)', `/${'a'.repeat(4000)}`, '/(a+)+$'];
  const ingresses = [
    accepted(ingress('good', 'tenant.example', [['/something(/|$)(.*)', 'ImplementationSpecific', 'web']]), { target: '/$2' }),
    ...hostile.map((path, n) =>
      accepted(ingress(`hostile-${n}`, 'tenant.example', [[path, 'ImplementationSpecific', 'web']]), { useRegex: true, target: '/$2' }),
    ),
    // A plain Ingress of a host that is not in regex mode: its path stays a literal prefix.
    accepted(ingress('plain', 'plain.example', [['/(', 'ImplementationSpecific', 'web']])),
  ];
  const result = build(ingresses);
  assert.deepEqual(locationsOf(result, 'tenant.example'), ['regex /something(/|$)(.*) -> app/web:80', 'regex / -> 404']);
  assert.deepEqual(locationsOf(result, 'plain.example'), ['prefix / -> 404', 'prefix /( -> app/web:80']);
  assert.deepEqual(
    problemsOf(result),
    hostile.map((_, n) => `hostile-${n} InvalidPath`),
  );
  for (const [n, path] of hostile.entries()) {
    assert.ok(result.problems[n]?.message.startsWith(`path ${JSON.stringify(path.slice(0, 64))} on host tenant.example `), path);
  }
});

test('a path another Ingress turns into a regex is dropped with a problem on its own Ingress, not the regex one', () => {
  const result = build([
    accepted(ingress('regex', 'shared.example', [['/api/(.*)', 'ImplementationSpecific', 'api']]), { useRegex: true }),
    accepted(
      ingress('neighbour', 'shared.example', [
        ['/docs', 'Prefix', 'web'],
        ['/files(', 'ImplementationSpecific', 'web'],
      ]),
    ),
  ]);
  assert.deepEqual(locationsOf(result, 'shared.example'), ['regex /api/(.*) -> app/api:80', 'regex /docs -> app/web:80', 'regex / -> 404']);
  assert.deepEqual(problemsOf(result), ['neighbour InvalidPath']);
  assert.match(
    result.problems[0]?.message ?? '',
    /^path "\/files\(" on host shared\.example is served as a regular expression .* not closed/,
  );
});
