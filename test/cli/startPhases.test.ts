import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StartPhases } from '../../src/cli/startPhases.js';

test('each phase is timed from the end of the one before, the first from the process start', () => {
  let now = 0;
  const phases = new StartPhases(() => now);
  for (const [phase, at] of [
    ['moduleLoad', 1200.4],
    ['setup', 1300],
    ['source', 3300],
    ['sync', 5800.6],
    ['health', 5810],
  ] as const) {
    now = at;
    phases.end(phase);
  }
  now = 5811;
  assert.deepEqual(phases.fields({ modelMs: 900.2, renderMs: 300, nginxStartMs: undefined }), {
    totalMs: 5811,
    moduleLoadMs: 1200,
    setupMs: 100,
    sourceMs: 2000,
    syncMs: 2501,
    healthMs: 9,
    modelMs: 900,
    renderMs: 300,
  });
});

test('a phase that did not end is left out, and the next one counts from the last that did', () => {
  let now = 0;
  const phases = new StartPhases(() => now);
  now = 1000;
  phases.end('moduleLoad');
  now = 4000;
  phases.end('source');
  assert.deepEqual(phases.fields(), { totalMs: 4000, moduleLoadMs: 1000, sourceMs: 3000 });
});
