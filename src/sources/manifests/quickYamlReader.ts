// A fast first try at reading a manifest file: js-yaml reads the plain YAML
// that manifests nearly always are 6-8 times faster than the yaml library's
// document model (3 MiB, 1,000 Ingresses with their objects: 80-137 ms
// against 721-893 ms). Plain scalars are resolved by the yaml library's own
// YAML 1.1 tags, the ones parseManifests reads with, so a value reads the
// same either way. Whatever this reader could read differently from yaml
// (tags, merge keys, directives, complex or collection keys, null keys, many
// aliases), and whatever it cannot read at all, it declines: the caller then
// reads the file the full way, which also words every error.
import jsYaml from 'js-yaml';
import { isScalar, parseDocument, type DocumentOptions, type ParseOptions, type ScalarTag, type SchemaOptions } from 'yaml';

export interface QuickYaml {
  /** Each `---`-separated document's value, in order. */
  documents: unknown[];
  /** The line (from 1) where each document's content starts. */
  lines: number[];
}

/**
 * yaml refuses an alias once an anchor's uses times its nested aliases exceed
 * 100 (maxAliasCount). That product is at most the product of the uses of a
 * chain of anchors, which for 12 uses in all is at most 3^4 = 81: with 12
 * aliases in a file yaml never refuses, and js-yaml shares the anchored value
 * as yaml does.
 */
const MAX_ALIASES = 12;

// Text these patterns find may be read differently by the two readers, so it
// goes the full way. Each may also match inside a quoted string: that costs
// the full reading, never a wrong one.
const TAG = /(?:^|[\s,[\]{}])!/m;
const ALIAS = /(?:^|[\s,[\]{}])\*/gm;
const DIRECTIVE = /^%/m;
const EXPLICIT_KEY = /(?:^|[\s,[{])\?(?:\s|$)/m;
/** A flow collection as an implicit key: js-yaml joins `[a, b]` to "a,b", yaml writes "[ a, b ]". */
const COLLECTION_KEY = /[\]}]\s*:(?:\s|$)/m;
/** Keys js-yaml and yaml turn into different strings: a null key ('' in yaml), an object key. */
const UNEQUAL_KEY = /^(?:~|[Nn]ull|NULL|)$|^\[object /;
/**
 * yaml refuses an implicit key whose source exceeds 1,024 characters; js-yaml
 * has no limit. A double-quoted escape writes at most 6 characters per one it
 * stands for, so a key of at most 170 is within the limit however written.
 */
const MAX_SAFE_KEY_LENGTH = 170;

/** The documents of `text` as the full reading would give them, or undefined when it must read them itself. */
export function readQuickly(text: string, options: ParseOptions & DocumentOptions & SchemaOptions): QuickYaml | undefined {
  if (text.includes('<<') || TAG.test(text) || DIRECTIVE.test(text) || EXPLICIT_KEY.test(text) || COLLECTION_KEY.test(text)) {
    return undefined;
  }
  if ((text.match(ALIAS)?.length ?? 0) > MAX_ALIASES) return undefined;
  const lines: number[] = [];
  const opened: { position: number; line: number }[] = [];
  let multiLineFlowNode = false;
  let documents: unknown[];
  try {
    documents = jsYaml.loadAll(text, undefined, {
      schema: schemaFor(options),
      // A document's own node opens at depth 1, on state.line (from 0).
      listener(event, state) {
        if (event === 'open') {
          if ((state as unknown as { depth: number }).depth === 1) lines.push(state.line + 1);
          opened.push({ position: state.position, line: state.line });
          return;
        }
        const node = opened.pop();
        if (node !== undefined && state.line !== node.line && isFlowNode(state.kind, text, node.position)) multiLineFlowNode = true;
      },
    });
  } catch {
    return undefined;
  }
  if (multiLineFlowNode) return undefined;
  if (lines.length !== documents.length || documents.some(hasUnequalKey)) return undefined;
  return { documents, lines };
}

/**
 * A node in flow style: a scalar other than a block scalar (`|`, `>`), a
 * `[...]` or `{...}` collection. Over several lines js-yaml reads one whose
 * next line is not indented past its parent, which yaml refuses; such nodes
 * are rare in manifests and go the full way.
 */
function isFlowNode(kind: string | null, text: string, position: number): boolean {
  const start = /\S/g;
  start.lastIndex = position;
  const first = start.exec(text)?.[0] ?? '';
  return kind === 'scalar' ? first !== '|' && first !== '>' : first === '[' || first === '{';
}

/** Any map key in `value` that yaml would have written differently or refused. Aliased values are looked at each time (at most 81 times). */
function hasUnequalKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasUnequalKey);
  if (typeof value !== 'object' || value === null) return false;
  for (const [key, entry] of Object.entries(value)) {
    if (key.length > MAX_SAFE_KEY_LENGTH || UNEQUAL_KEY.test(key) || hasUnequalKey(entry)) return true;
  }
  return false;
}

const schemas = new WeakMap<object, jsYaml.Schema>();

/**
 * js-yaml's failsafe schema (strings, maps, lists) and one implicit type that
 * resolves a plain scalar as yaml's schema for `options` would: by its first
 * tag whose test matches. (One type: js-yaml keeps only the last of several
 * types with the same tag, and yaml has two bool tags and four int tags.)
 */
function schemaFor(options: ParseOptions & DocumentOptions & SchemaOptions): jsYaml.Schema {
  const known = schemas.get(options);
  if (known !== undefined) return known;
  const document = parseDocument('', options);
  const tags = document.schema.tags.filter(
    (tag): tag is ScalarTag & { test: RegExp } => tag.default === true && 'test' in tag && tag.test instanceof RegExp,
  );
  const tagOf = (data: unknown): (ScalarTag & { test: RegExp }) | undefined => tags.find((tag) => tag.test.test(String(data)));
  const plainScalar = new jsYaml.Type('tag:portico,2026:plain-scalar', {
    kind: 'scalar',
    resolve: (data) => tagOf(data) !== undefined,
    construct: (data) => resolved(tagOf(data)!, String(data), document.options),
  });
  const schema = jsYaml.FAILSAFE_SCHEMA.extend({ implicit: [plainScalar] });
  schemas.set(options, schema);
  return schema;
}

/** The tag's value for `text`; a tag that reports an error throws, so that the full reading words it. */
function resolved(tag: ScalarTag, text: string, options: Parameters<ScalarTag['resolve']>[2]): unknown {
  const value = tag.resolve(
    text,
    (message) => {
      throw new Error(message);
    },
    options,
  );
  return isScalar(value) ? value.value : value;
}
