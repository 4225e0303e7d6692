import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeControlCharacter,
  listParser,
  optionParser,
  parseNginxSize,
  parseNginxTime,
  parseSeconds,
  quoteValue,
} from '../../../src/model/settings/valueSyntax.js';
import { nginxTimeMs } from '../../../src/model/settings/nginxLimits.js';

test('nginx sizes', () => {
  for (const text of ['0', '1', '512k', '512K', '1m', '1M', '2g', '2G']) {
    assert.deepEqual(parseNginxSize(text), { ok: true, value: text });
  }
  for (const text of ['', 'k', '1kb', '1b', '1t', '1.5m', '-1', ' 1m', '1m ', '1 m', '1234567890123456']) {
    assert.equal(parseNginxSize(text).ok, false, text);
  }
});

test('nginx sizes up to 2^63 - 1 bytes, what ngx_parse_offset takes (measured with nginx -t)', () => {
  for (const text of ['999999999999999', '999999999999999k', '8796093022207m', '8589934591g', '8589934591G']) {
    assert.deepEqual(parseNginxSize(text), { ok: true, value: text });
  }
  for (const text of ['8796093022208m', '8589934592g', '9999999999g', '999999999999999m'])
    assert.equal(parseNginxSize(text).ok, false, text);
});

test('nginx times', () => {
  for (const text of ['240', '240s', '1h', '1m', '500ms', '1d', '2w']) {
    assert.deepEqual(parseNginxTime(text), { ok: true, value: text });
  }
  for (const text of ['', 's', '1 h', '1x', '-1s', '1.5s', '1hh', 'h1', '1h30m']) {
    assert.equal(parseNginxTime(text).ok, false, text);
  }
});

test('nginx times: up to 2^31 - 1 ms, and no M or y (nginx refuses them in millisecond directives)', () => {
  for (const text of ['2147483647ms', '2147483', '2147483s', '35791m', '596h', '24d', '3w']) {
    assert.deepEqual(parseNginxTime(text), { ok: true, value: text });
  }
  for (const text of ['2147483648ms', '2147484s', '35792m', '597h', '25d', '4w', '1M', '1y', '999999999y']) {
    assert.equal(parseNginxTime(text).ok, false, text);
  }
});

test('nginx times in milliseconds', () => {
  const cases: [string, number][] = [
    ['240', 240_000],
    ['240s', 240_000],
    ['500ms', 500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1w', 604_800_000],
  ];
  for (const [text, ms] of cases) assert.equal(nginxTimeMs(text), ms, text);
  for (const text of ['1M', '1y', '25d']) assert.equal(nginxTimeMs(text), undefined, text);
});

test('seconds: whole, non-negative, below nginx timer overflow', () => {
  assert.deepEqual(parseSeconds('0'), { ok: true, value: 0 });
  assert.deepEqual(parseSeconds('2147483'), { ok: true, value: 2147483 });
  for (const text of ['', '-1', '+1', '1.0', '1e3', '0x1', '2147484', '99999999999999999999']) {
    assert.deepEqual(parseSeconds(text), { ok: false, expected: 'an integer of seconds from 0 to 2147483' }, text);
  }
});

test('options: exact, or case-insensitive returning the canonical spelling', () => {
  assert.deepEqual(optionParser(['Low', 'High'])('High'), { ok: true, value: 'High' });
  assert.equal(optionParser(['Low', 'High'])('high').ok, false);
  assert.deepEqual(optionParser(['Low', 'High'], true)('hIGH'), { ok: true, value: 'High' });
});

test('lists: trimmed items, empty items dropped, the first bad item named', () => {
  const sizes = listParser(',', parseNginxSize, 'sizes');
  assert.deepEqual(sizes(' 1m, ,2k,'), { ok: true, value: ['1m', '2k'] });
  assert.deepEqual(sizes(''), { ok: true, value: [] });
  const bad = sizes('1m,huge,also-bad');
  assert.equal(bad.ok, false);
  assert.ok(!bad.ok && bad.expected.includes('"huge" is not an nginx size'), JSON.stringify(bad));
});

test('control characters are described by code point and offset', () => {
  assert.equal(describeControlCharacter('plain text, with "quotes" and ünïcode'), undefined);
  assert.equal(describeControlCharacter('ab\ncd'), 'a control character (U+000A at offset 2)');
  assert.equal(describeControlCharacter('\r'), 'a control character (U+000D at offset 0)');
  assert.equal(describeControlCharacter('x\u009b'), 'a control character (U+009B at offset 1)');
});

test('quoted values are truncated', () => {
  assert.equal(quoteValue('a"b'), '"a\\"b"');
  assert.equal(quoteValue('abcdef', 3), '"abc..."');
});
