// docs/compatibility.md's flag rows for a flag whose ingress-nginx meaning cannot apply:
// its state, and the reason after its description.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlagDefinition } from '../../src/cli/flags.js';
import { renderCompatibility } from '../../tools/compatibility/renderCompatibility.js';

const flag = (name: string, implemented: boolean, cannotApply?: string): FlagDefinition =>
  implemented || cannotApply === undefined
    ? {
        name,
        kind: 'string',
        default: '',
        implemented: true,
        description: 'A flag.',
        ...(cannotApply === undefined ? {} : { cannotApply }),
      }
    : { name, kind: 'string', default: '', implemented: false, cannotApply, description: 'A flag.' };

test('a flag that cannot apply says so with its reason; one that partly applies is "yes, partly"', () => {
  const text = renderCompatibility({
    annotations: new Map(),
    annotationSections: {},
    configMapKeys: [],
    implementedKeys: new Map(),
    flags: [flag('download', false, 'no network | offline.'), flag('editions', true, 'never downloaded.'), flag('plain', true)],
    flagDefault: () => undefined,
  });
  const rows = text.split('\n').filter((line) => line.startsWith('| `--'));
  assert.deepEqual(rows, [
    '| `--download` | no — cannot apply |  | A flag. Cannot apply: no network \\| offline. |',
    '| `--editions` | yes, partly (see description) |  | A flag. Cannot apply: never downloaded. |',
    '| `--plain` | yes |  | A flag. |',
  ]);
  assert.match(text, /- flags of ingress-nginx .*: 1 of 3 `yes`; 1 `no — cannot apply`, 1 `yes, partly \(see description\)`/);
});
