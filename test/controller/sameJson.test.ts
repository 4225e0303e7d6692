import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sameJson } from '../../src/controller/sameJson.js';

const byJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

test('tells apart and together what JSON.stringify does, case by case', () => {
  const date = new Date(0);
  const cases: [unknown, unknown][] = [
    [
      { a: 1, b: 2 },
      { b: 2, a: 1 },
    ], // key order is part of the text
    [{ a: 1, b: undefined }, { a: 1 }],
    [{ a: 1, f: () => 1, s: Symbol('x') }, { a: 1 }],
    [{ a: undefined }, {}],
    [{}, { a: undefined, b: 1 }],
    [[undefined], [null]],
    [[() => 1], [null]],
    [
      [1, 2],
      [1, 2, undefined],
    ],
    [NaN, null],
    [Infinity, -Infinity],
    [{ n: NaN }, { n: null }],
    [0, -0],
    [1, '1'],
    [true, 'true'],
    [null, undefined],
    [undefined, undefined],
    [{ d: date }, { d: '1970-01-01T00:00:00.000Z' }],
    [{ d: date }, { d: new Date(1) }],
    [[], {}],
    [{ 0: 'a' }, ['a']],
    [new Map([[1, 2]]), {}],
    [Uint8Array.from([1, 2]), { 0: 1, 1: 2 }],
    [{ a: [{ b: [1, { c: 'x' }] }] }, { a: [{ b: [1, { c: 'x' }] }] }],
    [{ a: [{ b: [1, { c: 'x' }] }] }, { a: [{ b: [1, { c: 'y' }] }] }],
    ['é€𝄞', 'é€𝄞'],
  ];
  for (const [a, b] of cases) {
    assert.equal(sameJson(a, b), byJson(a, b), `${String(JSON.stringify(a))} vs ${String(JSON.stringify(b))}`);
    assert.equal(sameJson(b, a), byJson(b, a), `${String(JSON.stringify(b))} vs ${String(JSON.stringify(a))}`);
  }
});

/** A small deterministic generator (mulberry32), so a failure repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LEAVES: readonly unknown[] = [0, 1, -0, NaN, 'a', 'b', '', true, false, null, undefined, () => 0];

function value(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth === 0 || pick < 0.4) return LEAVES[Math.floor(next() * LEAVES.length)];
  const size = Math.floor(next() * 4);
  if (pick < 0.7) return Array.from({ length: size }, () => value(next, depth - 1));
  const object: Record<string, unknown> = {};
  for (let index = 0; index < size; index++) object[['a', 'b', 'c'][Math.floor(next() * 3)] as string] = value(next, depth - 1);
  return object;
}

/** A copy of `original` with at most one change somewhere: a leaf replaced, a key added, dropped or moved. */
function mutated(original: unknown, next: () => number, depth: number): unknown {
  if (typeof original !== 'object' || original === null || next() < 0.3) return next() < 0.5 ? original : value(next, depth);
  if (Array.isArray(original)) {
    const copy = [...(original as unknown[])];
    if (copy.length > 0) {
      const index = Math.floor(next() * copy.length);
      copy[index] = mutated(copy[index], next, depth - 1);
    }
    return copy;
  }
  const entries = Object.entries(original);
  const roll = next();
  if (roll < 0.15) entries.reverse();
  else if (roll < 0.3) entries.push(['d', value(next, 1)]);
  else if (roll < 0.4) entries.pop();
  else if (entries.length > 0) {
    const index = Math.floor(next() * entries.length);
    const [key, inner] = entries[index] as [string, unknown];
    entries[index] = [key, mutated(inner, next, depth - 1)];
  }
  return Object.fromEntries(entries);
}

test('agrees with comparing JSON.stringify texts on thousands of random values and their near copies', () => {
  const next = random(18);
  let same = 0;
  for (let round = 0; round < 5_000; round++) {
    const a = value(next, 4);
    const b = mutated(a, next, 4);
    const expected = byJson(a, b);
    if (expected) same++;
    assert.equal(sameJson(a, b), expected, `round ${round}: ${String(JSON.stringify(a))} vs ${String(JSON.stringify(b))}`);
  }
  // Both answers are exercised often.
  assert.ok(same > 500 && same < 4_500, `${same} of 5,000 pairs were the same`);
});
