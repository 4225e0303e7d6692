import assert from 'node:assert/strict';
import { test } from 'node:test';
import { raw } from '../../../../src/dataplane/nginx/render/arguments.js';
import { memoizedArgument } from '../../../../src/dataplane/nginx/render/memoizedArgument.js';

test('a value is issued once and handed out again; a refused one is refused at every call', () => {
  const issued: string[] = [];
  const name = memoizedArgument((value: string) => {
    issued.push(value);
    if (!/^[a-z]+$/.test(value)) throw new Error(`refused: ${value}`);
    return { token: value };
  });
  assert.equal(name('a'), name('a'));
  for (let round = 0; round < 3; round++) assert.throws(() => name('a;b'), /refused/);
  assert.deepEqual(issued, ['a', 'a;b', 'a;b', 'a;b']);
});

test('past the values it remembers, each call is checked again', () => {
  let checks = 0;
  const name = memoizedArgument((value: string) => ({ token: value, check: ++checks }));
  for (let index = 0; index < 5_000; index++) name(`v${index}`);
  const before = checks;
  name('v0');
  name('v4999');
  assert.equal(checks, before + 1, 'v0 is remembered, v4999 (past the limit) is checked again');
});

test("raw's memoized constructors still refuse hostile values after a valid one was issued", () => {
  assert.equal(raw.headerName('X-A').token, 'X-A');
  assert.equal(raw.variable('$a').token, '$a');
  assert.equal(raw.keyword('on').token, 'on');
  for (let round = 0; round < 2; round++) {
    assert.throws(() => raw.headerName('X-A; ssl_engine x'), /invalid header name/);
    assert.throws(() => raw.variable('$a;'), /invalid variable name/);
    assert.throws(() => raw.keyword('on;' as 'on'), /invalid keyword/);
  }
});
