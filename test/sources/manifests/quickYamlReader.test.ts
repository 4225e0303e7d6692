import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineCounter, parseAllDocuments, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';
import { readQuickly, type QuickYaml } from '../../../src/sources/manifests/quickYamlReader.js';
import { writeSyntheticManifests } from '../../../bench/support/syntheticManifests.js';

// parseManifests's options, written out again: the test holds the reader to yaml under them.
const KUBECTL_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) =>
    tags.filter((tag) =>
      typeof tag === 'string'
        ? !['timestamp', 'intTime', 'floatTime'].includes(tag)
        : tag.tag !== 'tag:yaml.org,2002:timestamp' && tag.format !== 'TIME',
    ),
  prettyErrors: false,
};

/** What the yaml library reads: the documents and their content lines, or undefined on any error. */
function readFully(text: string): QuickYaml | undefined {
  const lines = new LineCounter();
  const documents = parseAllDocuments(text, { ...KUBECTL_YAML, lineCounter: lines });
  if (!Array.isArray(documents) || documents.some((document) => document.errors.length > 0)) return undefined;
  try {
    return {
      documents: documents.map((document) => document.toJS() as unknown),
      lines: documents.map((document) => (document.contents ? lines.linePos(document.contents.range[0]).line : 0)),
    };
  } catch {
    return undefined;
  }
}

/** The documents with content, each with its number and line: what parseManifests takes from a reading. */
function contentOf(read: QuickYaml): { document: number; line: number | undefined; value: unknown }[] {
  return read.documents.flatMap((value, index) => (value == null ? [] : [{ document: index + 1, line: read.lines[index], value }]));
}

/** The quick reading, asserted equal to the full one whenever it reads the text; undefined when it declines. */
function readBoth(text: string): QuickYaml | undefined {
  const quick = readQuickly(text, KUBECTL_YAML);
  if (quick === undefined) return undefined;
  const full = readFully(text);
  assert.ok(full !== undefined, `yaml refuses what the quick reader read: ${JSON.stringify(text)}`);
  assert.deepEqual(contentOf(quick), contentOf(full), `read differently: ${JSON.stringify(text)}`);
  return quick;
}

// Plain scalars of every kind YAML 1.1 resolves, and strings that look like them.
const SCALARS = [
  '~',
  'null',
  'Null',
  'NULL',
  'nULL',
  'true',
  'True',
  'TRUE',
  'tRUE',
  'yes',
  'Yes',
  'YES',
  'y',
  'Y',
  'on',
  'On',
  'ON',
  'no',
  'No',
  'NO',
  'n',
  'N',
  'off',
  'Off',
  'OFF',
  'false',
  '0',
  '-0',
  '+12',
  '007',
  '0777',
  '08',
  '0o17',
  '0b1010',
  '-0b11',
  '0x1F',
  '0X1F',
  '0x_1f',
  '1_000',
  '123456789012345678901234',
  '1.5',
  '.5',
  '5.',
  '-1.5e3',
  '1e3',
  '1E+3',
  '1_0.5',
  '.inf',
  '-.Inf',
  '+.INF',
  '.nan',
  '.NaN',
  '1:20',
  '1:20:30.5',
  '2001-12-14',
  '2001-12-14t21:59:43.10-05:00',
  '=',
  'a b',
  'a  b',
  'a # not a comment',
  'ends with space ',
  'http://x/y?z=1',
  '/*',
  '*/',
  'a*b',
  'a!b',
  '@',
  '`x`',
  '-',
  '--',
  '- x',
  'key: value',
  "'single'",
  "'it''s'",
  '"double"',
  '"tab\\tand\\u00e9\\x41"',
  '"\\N\\_\\L\\P"',
  '""',
  "''",
  '"multi\n  line"',
  "'folded\n\n  twice'",
];

test('every plain, quoted and numeric-looking scalar reads as yaml reads it, as a value and as a key', () => {
  let read = 0;
  for (const scalar of SCALARS) {
    for (const text of [`value: ${scalar}\n`, `list:\n  - ${scalar}\n`, `flow: [${scalar}]\n`, `${scalar}: key\n`, `{${scalar}: 1}\n`]) {
      if (readBoth(text) !== undefined) read += 1;
    }
  }
  // Most texts are read quickly: a reader that declined everything would pass the comparisons.
  assert.ok(read > SCALARS.length * 3, `${read} of ${SCALARS.length * 5} texts read quickly`);
});

test('block scalars, comments, document markers, BOMs and line ends read as yaml reads them', () => {
  const texts = [
    'a: |\n  one\n  two\n\nb: 1\n',
    'a: |-\n  one\n\n\n',
    'a: |+\n  one\n\n\nb: 2\n',
    'a: >\n  folded\n  text\n\n  para\n',
    'a: >-\n    more\n  less\n',
    'a: |2\n    indented\n',
    'a: plain\n  continued\n\n  after blank\n',
    '# c\n---\na: 1 # c\n--- # c\nb: 2\n...\n---\nc: 3\n',
    '--- a\n--- [1, 2]\n--- {a: 1}\n',
    '\uFEFFa: 1\n',
    'a: 1\r\nb:\r\n  - x\r\n',
    'a:\n- b\n- c: d\n  e: f\n',
    'a: {b: [c, {d: e}], f: }\n',
    'empty:\nalso: ""\n',
    '',
    '# only comments\n',
    '---\n---\n',
    'a: "x\\\n  y"\n',
    "a: 'x # y'\n",
    'a: x #y\nb: x#y\n',
    '"quoted key": 1\n\'single key\': 2\n',
    '__proto__: {polluted: true}\ntoString: 1\n',
    'a: &x {b: 1}\nc: *x\nd: *x\n',
    'a: &s scalar\nb: *s\n',
    'a:\n  - &i {x: 1}\n  - *i\n',
    'a: b: c\n',
    'a:\n  - x\n - y\n',
    'a:\n  b: 1\n c: 2\n',
    '- a\n-b\n',
    'a: [1, 2] x\n',
    'a: {b: 1} x\n',
    '&k a: 1\n',
    'a: 1\n  b: 2\n',
    'a:\n  - plain\n  continued\n',
    'a:\n  b: plain\n  continued\n',
    'a: "x"y\n',
    "a: 'x'y\n",
    'a:\t1\n',
    '\ta: 1\n',
    'a: |\n\ttab\n',
    'a: |\n  x\n y\n',
    'a: >\n  x\n\ty\n',
    'a: "\\q"\n',
    'a: "\\x4"\n',
    'a: \u0007bell\n',
    'a: \u0085next line\n',
    'a: x\u2028y\n',
    `a: ${'k'.repeat(1100)}\n`,
    `${'k'.repeat(1100)}: 1\n`,
    'a: @x\n',
    'a: `x\n',
    'a: %x\n',
    '- - - deep\n',
    'a:\n- b\n  - c\n',
    '[a,\nb]\n',
    '{a: 1,\nb: 2}\n',
    'a: [b,\nc]\n',
    'a: - b\n',
    'a: ,b\n',
    'a: b,\n',
    'a: "b" # c\n',
    'a: b\n---x\n',
    'a: b\n--- \n...\nc: d\n',
    '... \na: 1\n',
  ];
  for (const text of texts) readBoth(text);
  assert.ok(readBoth(texts[0]!) !== undefined && readBoth(texts[7]!) !== undefined, 'plain block text is read quickly');
  assert.deepEqual(readBoth('# c\n---\na: 1 # c\n--- # c\nb: 2\n')?.lines, [3, 5]);
});

test('what the two readers could read differently is left to yaml', () => {
  const declined = [
    'a: !!str 1\n',
    'a: !custom x\n',
    '%YAML 1.2\n---\na: yes\n',
    'base: &b {x: 1}\nderived:\n  <<: *b\n',
    '? complex\n: key\n',
    '[a, b]: flow key\n',
    '{a: 1}: flow key\n',
    '~: null key\n',
    'null: null key\n',
    ': empty key\n',
    `a: &x [1]\n${Array.from({ length: 13 }, (_, i) => `k${i}: *x`).join('\n')}\n`,
    'a: 1\na: 2\n',
    'a: [1, 2\n',
    'a:\tb: c\n',
    'a: "unterminated\n',
    'a: *missing\n',
    // js-yaml reads these; yaml refuses them
    'list:\n  - "multi\n  line"\n',
    'a: [b,\nc]\n',
    `${'k'.repeat(1100)}: 1\n`,
  ];
  for (const text of declined) assert.equal(readQuickly(text, KUBECTL_YAML), undefined, `declined: ${JSON.stringify(text)}`);
  const twelve = `a: &x [1]\n${Array.from({ length: 11 }, (_, i) => `k${i}: *x`).join('\n')}\n`;
  assert.ok(readBoth(twelve) !== undefined, 'twelve aliases are read quickly');
});

test('the benchmark cluster’s manifests read quickly and as yaml reads them', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'quick-yaml-'));
  try {
    await writeSyntheticManifests(dir, 60);
    const files = await readdir(dir);
    for (const file of files) {
      assert.ok(readBoth(await readFile(join(dir, file), 'utf8')) !== undefined, `${file} read quickly`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
