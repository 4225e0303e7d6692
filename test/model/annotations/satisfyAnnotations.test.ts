import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accepted, assertRefusedWith, PREFIX } from './annotationTestSupport.js';

test('satisfy: unset by default, any or all in any case', () => {
  assert.equal(accepted({}).value.location.satisfy, undefined);
  assert.equal(accepted({ satisfy: 'any' }).value.location.satisfy, 'any');
  assert.equal(accepted({ satisfy: 'ALL' }).value.location.satisfy, 'all');
});

test('satisfy refuses anything else', () => {
  for (const value of ['none', 'any;', 'any all', 'on', '"any"'])
    assertRefusedWith({ satisfy: value }, [`${PREFIX}/satisfy`, 'one of any, all']);
});
