// docs/compatibility.md against the registries it is rendered from, and the
// renderer on small registries of the tests' own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FlagDefinition } from '../../src/cli/flags.js';
import type { AnnotationDefinition } from '../../src/model/annotations/annotationDefinition.js';
import type { KnownAnnotation } from '../../src/model/annotations/annotationRegistry.js';
import { currentSources } from '../../tools/compatibility/currentSources.js';
import {
  COMPATIBILITY_FILE,
  REGENERATE_COMMAND,
  renderCompatibility,
  type CompatibilitySources,
} from '../../tools/compatibility/renderCompatibility.js';

test(`${COMPATIBILITY_FILE} is what the registries render`, () => {
  const file = fileURLToPath(new URL(`../../${COMPATIBILITY_FILE}`, import.meta.url));
  const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
  // Not deepEqual on the texts: a diff of 700 lines says less than the command.
  assert.ok(committed === renderCompatibility(currentSources()), `${COMPATIBILITY_FILE} is out of date; run: ${REGENERATE_COMMAND}`);
});

const definition = (name: string): AnnotationDefinition<unknown> => ({ name, risk: 'Low', parse: (text) => ({ ok: true, value: text }) });

/** Implemented, or with the reason its meaning cannot apply. */
const flag = (name: string, cannotApply: string | undefined, description = 'A flag.'): FlagDefinition =>
  cannotApply === undefined
    ? { name, kind: 'string', default: '', implemented: true, description }
    : { name, kind: 'string', default: '', implemented: false, cannotApply, description };

function sources(overrides: Partial<CompatibilitySources> = {}): CompatibilitySources {
  const annotations = new Map<string, KnownAnnotation>([
    ['b-done', { kind: 'implemented', risk: 'Medium', definition: definition('b-done'), isAlias: false }],
    ['a-old-name', { kind: 'implemented', risk: 'Medium', definition: definition('b-done'), isAlias: true }],
    ['raw', { kind: 'snippet', risk: 'Critical', definition: definition('raw') }],
    ['raw-later', { kind: 'snippet', risk: 'Critical' }],
    ['guard', { kind: 'unimplemented', risk: 'High', unsafeToIgnore: 'ignoring it would fail open', missingModule: undefined }],
    ['nicety', { kind: 'unimplemented', risk: 'Low', unsafeToIgnore: undefined, missingModule: undefined }],
    ['tracing', { kind: 'unimplemented', risk: 'Low', unsafeToIgnore: undefined, missingModule: 'Tracing' }],
  ]);
  return {
    annotations,
    annotationSections: { zeta: ['tracing', 'nicety', 'guard'], alpha: ['raw-later', 'raw', 'b-done', 'a-old-name'] },
    configMapKeys: [
      { key: 'plain', type: 'bool', default: 'false' },
      { key: 'tuned', type: 'string', default: 'a b' },
      { key: 'traced', type: 'int', default: '7', missingModule: 'Tracing' },
      { key: 'old', type: 'string', default: '', note: 'no longer read' },
    ],
    implementedKeys: new Map([
      ['plain', { differentDefault: undefined }],
      ['tuned', { differentDefault: ['x|y', 'with `tick`'] }],
    ]),
    flags: [
      flag('watch', undefined),
      flag('sync', 'offline.', 'Resync | re-list.'),
      flag('v', undefined),
      flag('own', undefined, 'Portico only: ours.'),
    ],
    flagDefault: (definition) => (definition.name === 'watch' ? '"all"' : undefined),
    ...overrides,
  };
}

test('each registry entry renders its state, sections and names sorted', () => {
  const text = renderCompatibility(sources());
  const rows = text.split('\n').filter((line) => line.startsWith('| `'));
  assert.deepEqual(rows.slice(0, 7), [
    '| `a-old-name` | yes | Medium | deprecated alias of `b-done` |',
    '| `b-done` | yes | Medium |  |',
    '| `raw` | snippet | Critical |  |',
    '| `raw-later` | no — snippet, ignored once admitted | Critical |  |',
    '| `guard` | no — refused | High | ignoring it would fail open |',
    '| `nicety` | no — ignored with a warning | Low |  |',
    "| `tracing` | no — needs a module Debian's nginx lacks | Low | Debian's nginx has no Tracing module |",
  ]);
  assert.ok(text.indexOf('### alpha') < text.indexOf('### zeta'));
});

test('ConfigMap keys: implemented or not, a module Debian lacks, Portico’s own default, cells escaped', () => {
  const rows = renderCompatibility(sources())
    .split('\n')
    .filter((line) => /^\| `(old|plain|traced|tuned)`/.test(line));
  assert.deepEqual(rows, [
    '| `old` | no | string |  | no longer read |',
    '| `plain` | yes | bool | `false` |  |',
    "| `traced` | no — needs a module Debian's nginx lacks | int | `7` | Debian's nginx has no Tracing module |",
    "| `tuned` | yes | string | `a b` | Portico's default: `x\\|y`, `` with `tick` `` |",
  ]);
});

test('flags: implemented or not, Portico’s own, one-letter flags with one dash', () => {
  const rows = renderCompatibility(sources())
    .split('\n')
    .filter((line) => line.startsWith('| `-'));
  assert.deepEqual(rows, [
    "| `--own` | Portico's own |  | Portico only: ours. |",
    '| `--sync` | no — cannot apply |  | Resync \\| re-list. Cannot apply: offline. |',
    '| `-v` | yes |  | A flag. |',
    '| `--watch` | yes | `"all"` | A flag. |',
  ]);
});

test('the summary counts each state', () => {
  const summary = renderCompatibility(sources())
    .split('\n')
    .filter((line) => line.startsWith('- annotations:') || line.startsWith('- ConfigMap keys:') || line.startsWith('- flags'));
  assert.deepEqual(summary, [
    "- annotations: 2 of 7 `yes`; 1 `no — ignored with a warning`, 1 `no — needs a module Debian's nginx lacks`, 1 `no — refused`, " +
      '1 `no — snippet, ignored once admitted`, 1 `snippet`',
    "- ConfigMap keys: 2 of 4 `yes`; 1 `no`, 1 `no — needs a module Debian's nginx lacks`",
    "- flags of ingress-nginx (with klog's `-v`): 2 of 3 `yes`; 1 `no — cannot apply`; and 1 of Portico's own",
  ]);
});

test('a name in the registry but in no section, or in a section but not in the registry, is an error', () => {
  const withStray = sources();
  assert.throws(
    () =>
      renderCompatibility({
        ...withStray,
        annotationSections: { alpha: ['raw', 'raw-later', 'b-done', 'a-old-name', 'guard', 'tracing'] },
      }),
    /annotations not in any section of ingressNginxAnnotations\.ts: nicety/,
  );
  assert.throws(
    () => renderCompatibility(sources({ annotationSections: { ...withStray.annotationSections, extra: ['ghost'] } })),
    /annotation ghost of section extra is not in the registry/,
  );
  assert.throws(
    () => renderCompatibility(sources({ implementedKeys: new Map([['invented', { differentDefault: undefined }]]) })),
    /ConfigMap keys ingress-nginx does not document: invented/,
  );
});

test("Portico's defaults are compared with ingress-nginx's through Portico's own parser", () => {
  const { implementedKeys } = currentSources();
  // "31536000" and "false" parse to Portico's 31536000 and false: the same default.
  assert.equal(implementedKeys.get('hsts-max-age')?.differentDefault, undefined);
  assert.equal(implementedKeys.get('allow-snippet-annotations')?.differentDefault, undefined);
  // ingress-nginx documents `<Number of CPUs>`, which Portico's parser refuses; Portico's default is auto.
  assert.deepEqual(implementedKeys.get('worker-processes')?.differentDefault, ['auto']);
  // A list: "/.well-known/acme-challenge" parses to Portico's one-item list.
  assert.equal(implementedKeys.get('no-tls-redirect-locations')?.differentDefault, undefined);
});
