// docs/compatibility.md as text: Portico's state of every ingress-nginx
// annotation, ConfigMap key and flag, read from the registries the controller
// itself runs on (the annotation registry, the ConfigMap parser's table, the
// flag table) beside the lists of what ingress-nginx has. Pure and sorted: the
// same registries give the same text, so a test can hold the committed file to it.
import type { FlagDefinition } from '../../src/cli/flags.js';
import type { KnownAnnotation } from '../../src/model/annotations/annotationRegistry.js';
import type { RiskLevel } from '../../src/model/settings/globalSettings.js';
import type { IngressNginxConfigMapKey } from '../../src/model/settings/ingressNginxConfigMapKeys.js';

/** Relative to the repository. */
export const COMPATIBILITY_FILE = 'docs/compatibility.md';
export const REGENERATE_COMMAND = 'node --import tsx tools/compatibility.ts --write';

export interface CompatibilitySources {
  /** KNOWN_ANNOTATIONS: by name, aliases included. */
  annotations: ReadonlyMap<string, KnownAnnotation>;
  /** ingress-nginx's annotation names by the section of its annotations.md. */
  annotationSections: Readonly<Record<string, readonly string[]>>;
  configMapKeys: readonly IngressNginxConfigMapKey[];
  /** The keys Portico implements, each with its default when that is not ingress-nginx's (a list's items, or the one value). */
  implementedKeys: ReadonlyMap<string, { differentDefault: readonly string[] | undefined }>;
  flags: readonly FlagDefinition[];
  /** A flag's default as `--help` writes it, undefined for a zero value. */
  flagDefault: (definition: FlagDefinition) => string | undefined;
}

const NEEDS_MODULE = "no — needs a module Debian's nginx lacks";

/** What Portico does with an annotation; the words of the tables' "Portico" column. */
type AnnotationState =
  'yes' | 'snippet' | 'no — snippet, ignored once admitted' | 'no — refused' | 'no — ignored with a warning' | typeof NEEDS_MODULE;

interface AnnotationRow {
  name: string;
  state: AnnotationState;
  risk: RiskLevel;
  note: string;
}

function annotationRow(name: string, known: KnownAnnotation): AnnotationRow {
  switch (known.kind) {
    case 'implemented':
      return {
        name,
        state: 'yes',
        risk: known.risk,
        note: known.isAlias ? `deprecated alias of ${code(known.definition.name)}` : '',
      };
    case 'snippet':
      return { name, state: known.definition ? 'snippet' : 'no — snippet, ignored once admitted', risk: known.risk, note: '' };
    case 'unimplemented':
      if (known.unsafeToIgnore !== undefined) return { name, state: 'no — refused', risk: known.risk, note: known.unsafeToIgnore };
      if (known.missingModule !== undefined) {
        return { name, state: NEEDS_MODULE, risk: known.risk, note: `Debian's nginx has no ${known.missingModule} module` };
      }
      return { name, state: 'no — ignored with a warning', risk: known.risk, note: '' };
  }
}

export function renderCompatibility(sources: CompatibilitySources): string {
  const annotations = annotationSections(sources);
  const keys = configMapRows(sources);
  const flags = flagRows(sources);
  const annotationRows = annotations.flatMap(([, rows]) => rows);
  const ingressNginxFlags = flags.filter((row) => !row.porticoOwn);
  return [
    '# Compatibility with ingress-nginx v1.15.1',
    '',
    `Generated from Portico's registries by \`${REGENERATE_COMMAND}\`; do not edit it by hand.`,
    'test/tools/compatibility.test.ts fails when this file differs from what the tool renders. The sources:',
    "annotations from `src/model/annotations/annotationRegistry.ts` (by the sections of ingress-nginx's",
    '`annotations.md`: `src/model/annotations/ingressNginxAnnotations.ts`), ConfigMap keys from',
    "`src/model/settings/parseGlobalSettings.ts` beside ingress-nginx's `configmap.md`",
    '(`src/model/settings/ingressNginxConfigMapKeys.ts`), flags from `src/cli/flags.ts`.',
    '',
    '## Summary',
    '',
    `- annotations: ${countOf(annotationRows, 'yes')} of ${annotationRows.length} \`yes\`; ${counts(annotationRows)}`,
    `- ConfigMap keys: ${countOf(keys, 'yes')} of ${keys.length} \`yes\`; ${counts(keys)}`,
    `- flags of ingress-nginx (with klog's \`-v\`): ${countOf(ingressNginxFlags, 'yes')} of ${ingressNginxFlags.length} \`yes\`; ` +
      `${counts(ingressNginxFlags)}; and ${flags.length - ingressNginxFlags.length} of Portico's own`,
    '',
    '## Annotations',
    '',
    'Under `nginx.ingress.kubernetes.io/` (or `--annotations-prefix`). Every annotation, implemented or not, is',
    "refused above the ConfigMap's `annotations-risk-level` (default High), as in ingress-nginx. States:",
    '',
    "- `yes`: parsed, validated and applied with ingress-nginx's semantics.",
    '- `snippet`: raw nginx configuration, refused unless the ConfigMap sets `allow-snippet-annotations: "true"` and',
    '  `annotations-risk-level: Critical`; then applied.',
    '- `no — snippet, ignored once admitted`: refused as a snippet; admitted, it has no effect (with a warning).',
    '- `no — refused`: not implemented, and ignoring it would fail open, so the Ingress is refused (a `Rejected` Event).',
    '- `no — ignored with a warning`: not implemented; the Ingress is served without it (an `AnnotationWarning` Event).',
    "- `no — needs a module Debian's nginx lacks`: Portico cannot implement it on the nginx it runs; ignored with a",
    '  warning that says so.',
    '',
    ...annotations.flatMap(([section, rows]) => [
      `### ${section}`,
      '',
      ...table(
        ['annotation', 'Portico', 'risk', 'notes'],
        rows.map((row) => [code(row.name), row.state, row.risk, row.note]),
      ),
      '',
    ]),
    '## ConfigMap keys',
    '',
    'The global ConfigMap (`--configmap`). A key Portico does not implement (`no`) is ignored, with an `IgnoredKey` Warning on the ConfigMap;',
    "`no — needs a module Debian's nginx lacks` says that Portico cannot implement it with the nginx it runs on. The",
    "default is ingress-nginx's; the notes give Portico's where it differs.",
    '',
    ...table(
      ['key', 'Portico', 'type', 'ingress-nginx default', 'notes'],
      keys.map((row) => [code(row.key), row.state, row.type, row.default === '' ? '' : code(row.default), row.note]),
    ),
    '',
    '## Flags',
    '',
    'Every flag of ingress-nginx is accepted with its name, type and default, and implemented; one whose ingress-nginx',
    'meaning cannot apply to Portico (wholly or in part) says why in its description and in a warning at start when given a value',
    'other than its default (`--help`: `[cannot apply: …]`). Defaults as',
    '`--help` writes them (blank for a zero value).',
    '',
    ...table(
      ['flag', 'Portico', 'default', 'description'],
      flags.map((row) => [
        code(`${row.name.length === 1 ? '-' : '--'}${row.name}`),
        row.state,
        row.default === undefined ? '' : code(row.default),
        row.description,
      ]),
    ),
    '',
  ].join('\n');
}

function annotationSections(sources: CompatibilitySources): [string, AnnotationRow[]][] {
  const listed = new Set(Object.values(sources.annotationSections).flat());
  const unlisted = [...sources.annotations.keys()].filter((name) => !listed.has(name));
  if (unlisted.length > 0) {
    throw new Error(`annotations not in any section of ingressNginxAnnotations.ts: ${unlisted.sort().join(', ')}`);
  }
  return Object.entries(sources.annotationSections)
    .sort(([a], [b]) => compare(a, b))
    .map(([section, names]) => [
      section,
      [...names].sort(compare).map((name) => {
        const known = sources.annotations.get(name);
        if (known === undefined) throw new Error(`annotation ${name} of section ${section} is not in the registry`);
        return annotationRow(name, known);
      }),
    ]);
}

const REFUSED_KEY = 'no — refused, with the reason';
type ConfigMapState = 'yes' | 'no' | typeof NEEDS_MODULE | typeof REFUSED_KEY;

function configMapState(key: IngressNginxConfigMapKey, implemented: boolean): ConfigMapState {
  if (implemented) return 'yes';
  if (key.missingModule !== undefined) return NEEDS_MODULE;
  return key.refusedBecause === undefined ? 'no' : REFUSED_KEY;
}

function configMapRows(sources: CompatibilitySources) {
  const ingressNginx = new Map(sources.configMapKeys.map((key) => [key.key, key]));
  const porticoOnly = [...sources.implementedKeys.keys()].filter((key) => !ingressNginx.has(key));
  if (porticoOnly.length > 0) throw new Error(`ConfigMap keys ingress-nginx does not document: ${porticoOnly.sort().join(', ')}`);
  return [...sources.configMapKeys]
    .sort((a, b) => compare(a.key, b.key))
    .map((key) => {
      const implemented = sources.implementedKeys.get(key.key);
      const state = configMapState(key, implemented !== undefined);
      const notes = [
        implemented?.differentDefault === undefined ? '' : `Portico's default: ${describeValues(implemented.differentDefault)}`,
        key.missingModule === undefined ? '' : `Debian's nginx has no ${key.missingModule} module`,
        key.refusedBecause ?? '',
        key.note ?? '',
      ];
      return { key: key.key, state, type: key.type, default: key.default, note: notes.filter((note) => note !== '').join('; ') };
    });
}

function flagRows(sources: CompatibilitySources) {
  return [...sources.flags]
    .sort((a, b) => compare(a.name, b.name))
    .map((definition) => {
      // flags.ts's convention for the flags ingress-nginx does not have.
      const porticoOwn = definition.description.startsWith('Portico only:');
      const state = porticoOwn ? "Portico's own" : flagState(definition);
      const description =
        definition.cannotApply === undefined ? definition.description : `${definition.description} Cannot apply: ${definition.cannotApply}`;
      return { name: definition.name, state, porticoOwn, default: sources.flagDefault(definition), description };
    });
}

/** `cannotApply` is the part of ingress-nginx's meaning Portico cannot honour: all of it when the flag is not implemented. */
function flagState(definition: FlagDefinition): string {
  if (definition.cannotApply !== undefined) return definition.implemented ? 'yes, partly (see description)' : 'no — cannot apply';
  return 'yes';
}

function countOf(rows: readonly { state: string }[], state: string): number {
  return rows.filter((row) => row.state === state).length;
}

/** "37 `no — refused`, 61 `no — ignored with a warning`, …": the count of each state other than yes, sorted by state. */
function counts(rows: readonly { state: string }[]): string {
  const states = [...new Set(rows.map((row) => row.state))].filter((state) => state !== 'yes').sort(compare);
  return states.map((state) => `${countOf(rows, state)} ${code(state)}`).join(', ') || 'nothing else';
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const line = (cells: readonly string[]) => `| ${cells.map((text) => text.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)];
}

function describeValues(values: readonly string[]): string {
  return values.length === 0 ? 'empty' : values.map(code).join(', ');
}

/** A Markdown code span that holds any text (a value with backticks gets a longer fence). */
function code(text: string): string {
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longestRun + 1);
  return longestRun === 0 ? `${fence}${text}${fence}` : `${fence} ${text} ${fence}`;
}

/** Code-point order, the same on every machine (localeCompare is not). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
