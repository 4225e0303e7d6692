// Turns one manifest file into the objects `kubectl apply -f` would create,
// and says precisely what is wrong with the rest. Pure: no I/O, no logging.
import {
  isMap,
  isNode,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Document,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
  type Tags,
} from 'yaml';
import type { Kind, KindTypes, KubeObject } from '../../kube/objects.js';
import { RESOURCES } from '../kubernetes/resources.js';
import { readQuickly } from './quickYamlReader.js';

/** Where something sits in a manifest file. Documents, items and lines count from 1. */
export interface ManifestPosition {
  file: string;
  /** Which `---`-separated document of the file. */
  document?: number;
  /** Which entry of a List document's `items`. */
  item?: number;
  line?: number;
  column?: number;
}

export interface ManifestError extends ManifestPosition {
  /** The whole message, position included, ready to show to a person. */
  message: string;
}

/** One object read from a file, tagged with the kind it was checked against (narrow on `kind`). */
export type ManifestObject<K extends Kind = Kind> = {
  [P in K]: { kind: P; object: KindTypes[P]; position: ManifestPosition };
}[K];

export interface ParsedManifests {
  objects: ManifestObject[];
  errors: ManifestError[];
}

/** `file:line:column (document 2, item 3)`, leaving out what is unknown. */
export function formatPosition(position: ManifestPosition): string {
  let text = position.file;
  if (position.line !== undefined) text += `:${position.line}`;
  if (position.line !== undefined && position.column !== undefined) text += `:${position.column}`;
  if (position.document !== undefined) {
    text += ` (document ${position.document}`;
    if (position.item !== undefined) text += `, item ${position.item}`;
    text += ')';
  }
  return text;
}

export function manifestError(position: ManifestPosition, problem: string): ManifestError {
  return { ...position, message: `${formatPosition(position)}: ${problem}` };
}

// kubectl reads YAML through go-yaml v2, which follows YAML 1.1 (yes/no/on/off
// booleans, 0777 octal, `<<` merge keys) but leaves timestamps and base-60
// numbers as strings; YAML 1.1 minus those two reads manifests as kubectl does.
const KUBECTL_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) => tags.filter((tag) => !isTimeTag(tag)),
  prettyErrors: false,
};

function isTimeTag(tag: Tags[number]): boolean {
  if (typeof tag === 'string') return tag === 'timestamp' || tag === 'intTime' || tag === 'floatTime';
  return tag.tag === 'tag:yaml.org,2002:timestamp' || tag.format === 'TIME';
}

export function parseManifests(text: string, file: string): ParsedManifests {
  return parseQuickly(text, file) ?? parseFully(text, file);
}

/**
 * The file's objects when the quick reader reads it and every document is one
 * good object; otherwise undefined, and the full reading says what is wrong
 * and where (a List's items need the document model for their lines).
 */
function parseQuickly(text: string, file: string): ParsedManifests | undefined {
  const read = readQuickly(text, KUBECTL_YAML);
  if (read === undefined) return undefined;
  const objects: ManifestObject[] = [];
  for (const [index, value] of read.documents.entries()) {
    if (value === null || value === undefined) continue;
    if (isList(value)) return undefined;
    const checked = checkObject(value);
    if (typeof checked === 'string') return undefined;
    objects.push({ ...checked, position: { file, document: index + 1, line: read.lines[index] } } as ManifestObject);
  }
  return { objects, errors: [] };
}

function parseFully(text: string, file: string): ParsedManifests {
  const objects: ManifestObject[] = [];
  const errors: ManifestError[] = [];
  const lines = new LineCounter();
  const documents = parseAllDocuments(text, { ...KUBECTL_YAML, lineCounter: lines });

  documents.forEach((doc, index) => {
    const at = (offset: number | undefined, item?: number): ManifestPosition => {
      const position: ManifestPosition = { file, document: index + 1 };
      if (item !== undefined) position.item = item;
      if (offset !== undefined) position.line = lines.linePos(offset).line;
      return position;
    };
    const syntaxError = doc.errors[0];
    if (syntaxError) {
      // Later errors in the same document are usually echoes of the first.
      const { line, col } = lines.linePos(syntaxError.pos[0]);
      errors.push(manifestError({ ...at(undefined), line, column: col }, `YAML syntax error: ${syntaxError.message}`));
      return;
    }
    const contentStart = doc.contents?.range[0];
    let value: unknown;
    try {
      value = doc.toJS();
    } catch (error) {
      // an alias to a missing anchor, or an alias bomb yaml refuses to expand
      errors.push(manifestError(at(contentStart), `cannot read the document: ${(error as Error).message}`));
      return;
    }
    if (value === null || value === undefined) return; // an empty document, or only comments

    const start = at(contentStart);
    if (!isList(value)) {
      collect(value, start, objects, errors);
      return;
    }
    const items = value.items ?? []; // kubectl prints an empty list as `items: null`
    if (!Array.isArray(items)) {
      errors.push(manifestError(start, `${value.kind} "items" must be a list (found ${describeValue(items)})`));
      return;
    }
    const itemOffsets = itemOffsetsOf(doc);
    items.forEach((item, i) => collect(item, at(itemOffsets[i], i + 1), objects, errors));
  });
  return { objects, errors };
}

/** A `List` (or `FooList`) document, whose items are the objects. */
function isList(value: unknown): value is { kind: string; items?: unknown } {
  return isRecord(value) && typeof value['kind'] === 'string' && value['kind'].endsWith('List');
}

/** Where each entry of a List document's `items` starts, for error lines. */
function itemOffsetsOf(doc: Document.Parsed): (number | undefined)[] {
  const items = isMap(doc.contents) ? doc.contents.get('items', true) : undefined;
  return isSeq(items) ? items.items.map((item) => (isNode(item) ? item.range?.[0] : undefined)) : [];
}

function collect(value: unknown, position: ManifestPosition, objects: ManifestObject[], errors: ManifestError[]): void {
  const checked = checkObject(value);
  if (typeof checked === 'string') errors.push(manifestError(position, checked));
  // Beyond what checkObject looks at, the object is trusted to follow its
  // kind's schema, as `kubectl apply --validate=false` would.
  else objects.push({ ...checked, position } as ManifestObject);
}

/** The object as the API server would store it, or what is wrong with it. */
function checkObject(value: unknown): { kind: Kind; object: KubeObject } | string {
  if (!isRecord(value)) return `not an object (found ${describeValue(value)})`;
  const { kind, apiVersion } = value;
  if (typeof kind !== 'string' || kind === '') return 'missing kind';
  if (!isKind(kind)) return `unsupported kind "${kind}" (Portico reads ${Object.keys(RESOURCES).join(', ')})`;
  const resource = RESOURCES[kind];
  if (typeof apiVersion !== 'string' || apiVersion === '') return `${kind} is missing apiVersion (want ${resource.apiVersion})`;
  if (apiVersion !== resource.apiVersion) {
    return `unsupported apiVersion "${apiVersion}" for ${kind} (Portico reads ${resource.apiVersion})`;
  }

  const metadata = value['metadata'] ?? {};
  if (!isRecord(metadata)) return `${kind} metadata is not an object`;
  const { name, namespace } = metadata;
  if (name === undefined || name === null || name === '') return `${kind} is missing metadata.name`;
  if (typeof name !== 'string') return `${kind} metadata.name must be a string (found ${describeValue(name)})`;
  if (namespace != null && typeof namespace !== 'string') {
    return `${kind} ${name}: metadata.namespace must be a string (found ${describeValue(namespace)})`;
  }
  const problem =
    stringMapProblem(metadata, 'labels', 'metadata.labels') ??
    stringMapProblem(metadata, 'annotations', 'metadata.annotations') ??
    kindProblem(kind, value);
  if (problem !== undefined) return `${kind} ${name}: ${problem}`;

  // Like the API server: namespaced objects land in `default` when none is
  // given, and a cluster-scoped object's namespace is dropped.
  const normalisedMetadata: Record<string, unknown> = { ...metadata };
  if (resource.namespaced) normalisedMetadata['namespace'] = namespace || 'default';
  else delete normalisedMetadata['namespace'];
  let object: Record<string, unknown> = { ...value, metadata: normalisedMetadata };
  if (kind === 'Secret') object = foldStringData(object);
  return { kind, object };
}

/** Checks of the string maps that the kind's consumers read without further checks. */
function kindProblem(kind: Kind, value: Record<string, unknown>): string | undefined {
  switch (kind) {
    case 'ConfigMap':
      return stringMapProblem(value, 'data', 'data') ?? stringMapProblem(value, 'binaryData', 'binaryData', isBase64);
    case 'Secret':
      return stringMapProblem(value, 'data', 'data', isBase64) ?? stringMapProblem(value, 'stringData', 'stringData');
    default:
      return undefined;
  }
}

/**
 * What is wrong with `owner[key]` as a map of strings, if anything. The API
 * server rejects an unquoted `true` or `8080` there; so does this, with a hint.
 */
function stringMapProblem(
  owner: Record<string, unknown>,
  key: string,
  field: string,
  isValid?: (text: string) => boolean,
): string | undefined {
  const map = owner[key];
  if (map === undefined || map === null) return undefined;
  if (!isRecord(map)) return `${field} must be a map of strings (found ${describeValue(map)})`;
  for (const [name, entry] of Object.entries(map)) {
    if (typeof entry !== 'string') {
      return `${field}["${name}"] must be a string (found ${describeValue(entry)}; quote it)`;
    }
    if (isValid && !isValid(entry)) return `${field}["${name}"] is not valid base64 (put plain text in stringData)`;
  }
  return undefined;
}

/** The API server merges a Secret's `stringData` into `data`, base64-encoded, stringData winning. */
function foldStringData(secret: Record<string, unknown>): Record<string, unknown> {
  const { stringData, ...rest } = secret;
  if (!isRecord(stringData)) return rest;
  const encoded = Object.entries(stringData).map(([name, text]) => [name, Buffer.from(String(text), 'utf8').toString('base64')]);
  return { ...rest, data: { ...(isRecord(rest['data']) ? rest['data'] : {}), ...Object.fromEntries(encoded) } };
}

// Go's standard base64 (which decodes Secret data) wants padding and skips line breaks.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isBase64(text: string): boolean {
  return BASE64.test(text.replace(/[\r\n]/g, ''));
}

function isKind(kind: string): kind is Kind {
  return Object.hasOwn(RESOURCES, kind);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `${typeof value} ${value}`;
  return typeof value;
}
