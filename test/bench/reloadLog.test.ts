// The soak's reading of Portico's log: reloads counted, the longest, and two
// in progress at once told from one after the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summarizeReloads } from '../../bench/support/reloadLog.js';

const reloaded = (endIso: string, reloadMs: number): string =>
  JSON.stringify({ level: 'info', time: endIso, msg: 'nginx reloaded', reloadMs, reloads: 1 });
const applied = (applyMs: number, liveMs: number): string =>
  JSON.stringify({ level: 'info', time: '2026-01-01T00:00:00.000Z', msg: 'configuration applied', outcome: 'reloaded', applyMs, liveMs });

test('reloads one after the other: counted, the longest found, no overlap', () => {
  const summary = summarizeReloads(
    [
      reloaded('2026-01-01T00:00:01.000Z', 800),
      applied(1200, 30),
      'not json: nginx said something',
      reloaded('2026-01-01T00:00:03.000Z', 1500), // began at 1.5 s, after the first ended
      applied(2100, 45),
      '{"msg":"nginx relo', // cut by a concurrent write
    ].join('\n'),
  );
  assert.deepEqual(summary, { reloads: 2, longestReloadMs: 1500, overlaps: 0, longestApplyMs: 2100, longestLiveMs: 45, errors: 0 });
});

test('a reload that began before the previous one ended is an overlap, whatever order the lines are in', () => {
  const summary = summarizeReloads(
    [
      reloaded('2026-01-01T00:00:05.000Z', 1000), // 4.0–5.0 s
      reloaded('2026-01-01T00:00:02.000Z', 1000), // 1.0–2.0 s
      reloaded('2026-01-01T00:00:02.500Z', 1000), // 1.5–2.5 s: inside the second
      JSON.stringify({ level: 'error', time: '2026-01-01T00:00:06.000Z', msg: 'nginx refused the new configuration' }),
    ].join('\n'),
  );
  assert.equal(summary.reloads, 3);
  assert.equal(summary.overlaps, 1);
  assert.equal(summary.errors, 1);
});

test('a reload that begins the millisecond the previous one ended is not an overlap', () => {
  const summary = summarizeReloads([reloaded('2026-01-01T00:00:01.000Z', 1000), reloaded('2026-01-01T00:00:02.000Z', 1000)].join('\n'));
  assert.equal(summary.overlaps, 0);
});
