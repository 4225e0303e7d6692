import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coverageSummary, parseLcov } from './coverageSummary.js';

const lcov = `TN:
SF:src/a.ts
DA:1,1
BRF:4
BRH:3
LH:9
LF:10
end_of_record
TN:
SF:src/b.ts
BRF:6
BRH:1
LH:5
LF:10
end_of_record
TN:
SF:test/a.test.ts
BRF:1
BRH:0
LH:0
LF:50
end_of_record
`;

test("parseLcov reads each file's line and branch counts", () => {
  assert.deepEqual(parseLcov(lcov)[1], { file: 'src/b.ts', lines: { found: 10, hit: 5 }, branches: { found: 6, hit: 1 } });
  assert.equal(parseLcov(lcov).length, 3);
});

test('the summary totals src/ only, names files under the threshold and files no test loaded', () => {
  assert.deepEqual(coverageSummary(parseLcov(lcov), ['src/a.ts', 'src/b.ts', 'src/c.ts'], 'src/', 80), [
    'coverage of src/: lines 70.0 %, branches 40.0 % (2 files loaded by the tests run)',
    'files under 80 % of lines:',
    '  src/b.ts: lines 50.0 %, branches 16.7 %',
    'files no test run loaded: src/c.ts',
  ]);
});

test('a run that recorded nothing of src/ says so, rather than 100 %', () => {
  assert.deepEqual(coverageSummary(parseLcov(lcov).slice(2), ['src/a.ts'], 'src/', 80), ['no coverage of src/ was recorded']);
});
