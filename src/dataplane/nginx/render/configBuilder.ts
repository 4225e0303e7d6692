// The typed builder of nginx configuration: the single place that writes
// nginx.conf text. Names are Portico's own identifiers, arguments are
// `Argument`s (arguments.ts), so user data can only ever be a whole argument.
// Every node records its origin (configOrigins.ts): the object a line nginx
// refuses is traced back to.
//
// A builder either writes the text as it goes (ConfigBuilder.writingText: what
// the data plane loads, without a tree to hold) or keeps the directive tree
// (new ConfigBuilder(): for tests that compare it with what nginx parses);
// both lay the text out with configText.ts.
import { Argument } from './arguments.js';
import { PORTICO_ORIGIN, type TracedConfig } from './configOrigins.js';
import { ConfigPieceText, ConfigText, ConfigTextWriter, type ConfigPiece } from './configText.js';
import { LuaCall } from './luaCall.js';

/** A directive (`name args;`) or a block (`name args { children }`). */
export interface ConfigDirective {
  readonly kind: 'directive';
  readonly name: string;
  readonly args: readonly Argument[];
  /** Present for blocks. */
  readonly children?: readonly ConfigNode[];
  /** Present for `*_by_lua_block`s: their body is Lua statements, one per line, not directives. */
  readonly lua?: readonly LuaCall[];
  readonly origin: number;
}

/** A line of a `map` or `geo` block: `key value;`, where the key is data (may be quoted). */
export interface ConfigEntry {
  readonly kind: 'entry';
  readonly key: Argument;
  readonly values: readonly Argument[];
  readonly origin: number;
}

/**
 * nginx configuration text written as it is: only a snippet annotation the
 * administrator admitted (allow-snippet-annotations and risk level Critical).
 * Its lines are written one by one with its origin, so nginx's line numbers
 * still map to the object it came from.
 */
export interface ConfigVerbatim {
  readonly kind: 'verbatim';
  readonly lines: readonly string[];
  readonly origin: number;
}

export type ConfigNode = ConfigDirective | ConfigEntry | ConfigVerbatim;

const DIRECTIVE_NAME = /^[a-z_][a-z0-9_]*$/;

export class ConfigBuilder {
  /** The tree kept (tree mode), or undefined when the builder writes text. */
  readonly #nodes: ConfigNode[] | undefined;
  readonly #writer: ConfigTextWriter | undefined;
  #origin: number;

  constructor(origin = PORTICO_ORIGIN, writer?: ConfigTextWriter) {
    this.#origin = origin;
    this.#writer = writer;
    this.#nodes = writer === undefined ? [] : undefined;
  }

  /** A top-level builder that writes the text as it goes; `finish` returns it once everything is written. */
  static writingText(): { root: ConfigBuilder; finish: () => TracedConfig } {
    const text = new ConfigText();
    return { root: new ConfigBuilder(PORTICO_ORIGIN, new ConfigTextWriter(text)), finish: () => text.finish() };
  }

  /**
   * A builder whose text becomes a piece (ConfigPiece) to put at `depth` in a
   * later render; its origins are ids of the piece's own OriginTable.
   */
  static writingPiece(depth: number): { root: ConfigBuilder; finish: () => ConfigPiece } {
    const text = new ConfigPieceText();
    const writer = new ConfigTextWriter(text, depth);
    return { root: new ConfigBuilder(PORTICO_ORIGIN, writer), finish: () => text.finish(writer) };
  }

  /** Whether this builder writes text (and so takes pieces), rather than keeping a directive tree. */
  get writesText(): boolean {
    return this.#writer !== undefined;
  }

  /** A piece written apart at this block's depth, its origin ids translated by `originIds`; text builders only. */
  piece(piece: ConfigPiece, originIds: Uint32Array): this {
    if (this.#writer === undefined) throw new Error('a builder that keeps a directive tree takes no text pieces');
    this.#writer.piece(piece, originIds);
    return this;
  }

  get nodes(): readonly ConfigNode[] {
    if (this.#nodes === undefined) throw new Error('a builder that writes text keeps no directive tree');
    return this.#nodes;
  }

  directive(name: string, ...args: Argument[]): this {
    checkName(name);
    checkArgs(args);
    if (this.#writer !== undefined) this.#writer.directive(name, args, this.#origin);
    else this.#push({ kind: 'directive', name, args, origin: this.#origin });
    return this;
  }

  block(name: string, args: readonly Argument[], body: (inner: ConfigBuilder) => void): this {
    checkName(name);
    checkArgs(args);
    const origin = this.#origin;
    if (this.#writer !== undefined) {
      this.#writer.block(name, args, origin, (writer) => body(new ConfigBuilder(origin, writer)));
      return this;
    }
    const inner = new ConfigBuilder(origin);
    body(inner);
    this.#push({ kind: 'directive', name, args: [...args], children: inner.nodes, origin });
    return this;
  }

  /** What `body` adds (blocks with all they hold) comes from `origin` (an id of the render's OriginTable). */
  from(origin: number, body: () => void): this {
    const outer = this.#origin;
    this.#origin = origin;
    try {
      body();
    } finally {
      this.#origin = outer;
    }
    return this;
  }

  /** Lines of nginx configuration as they are (see ConfigVerbatim): never for anything but an admitted snippet. */
  verbatim(text: string): this {
    const lines = text.split(/\r?\n/);
    // eslint-disable-next-line no-control-regex -- the control characters are what it refuses
    if (lines.some((line) => /[\x00-\x08\x0a-\x1f\x7f]/.test(line))) throw new Error('a verbatim line must not hold control characters');
    if (this.#writer !== undefined) this.#writer.verbatim(lines, this.#origin);
    else this.#push({ kind: 'verbatim', lines, origin: this.#origin });
    return this;
  }

  /** A `*_by_lua_block` whose body is calls into Portico's Lua modules, in order. */
  luaBlock(name: string, ...calls: LuaCall[]): this {
    if (!name.endsWith('_by_lua_block')) throw new Error(`not a Lua block directive: ${name}`);
    if (calls.length === 0) throw new Error(`empty Lua block: ${name}`);
    if (!calls.every((call) => call instanceof LuaCall)) throw new Error('Lua blocks take LuaCalls');
    checkName(name);
    if (this.#writer !== undefined) this.#writer.luaBlock(name, calls, this.#origin);
    else this.#push({ kind: 'directive', name, args: [], lua: calls, origin: this.#origin });
    return this;
  }

  /** A `map`/`geo` line. */
  entry(key: Argument, ...values: Argument[]): this {
    checkArgs([key]);
    checkArgs(values);
    if (this.#writer !== undefined) this.#writer.entry(key, values, this.#origin);
    else this.#push({ kind: 'entry', key, values, origin: this.#origin });
    return this;
  }

  /** Whether this block (not the blocks it holds) has a directive `name` whose first argument is written as `first` (any, when undefined). */
  hasDirective(name: string, first?: string): boolean {
    if (this.#writer !== undefined) return this.#writer.hasDirective(name, first);
    return this.nodes.some(
      (node) => node.kind === 'directive' && node.name === name && (first === undefined || node.args[0]?.token === first),
    );
  }

  /** Whether this block (not the blocks it holds) has verbatim lines (a snippet may set any directive). */
  hasVerbatim(): boolean {
    if (this.#writer !== undefined) return this.#writer.hasVerbatim;
    return this.nodes.some((node) => node.kind === 'verbatim');
  }

  #push(node: ConfigNode): void {
    this.#nodes?.push(node);
  }
}

/**
 * The names Portico's render code has written: they are its own constants,
 * so each distinct one is checked once, not at each of the million directives
 * of a large render.
 */
const CHECKED_NAMES = new Set<string>();

function checkName(name: string): void {
  if (CHECKED_NAMES.has(name)) return;
  if (!DIRECTIVE_NAME.test(name)) throw new Error(`invalid nginx directive name: ${JSON.stringify(name)}`);
  CHECKED_NAMES.add(name);
}

// A runtime check as well as the type: a string smuggled in through `any` must not reach the file.
function checkArgs(args: readonly Argument[]): void {
  for (const arg of args) {
    if (!(arg instanceof Argument)) throw new Error(`nginx arguments must be Argument values, got ${typeof arg}`);
  }
}

/** nginx.conf text: one directive per line, blocks indented, a blank line before a block that follows a sibling. */
export function serializeConfig(nodes: readonly ConfigNode[]): string {
  return serializeTracedConfig(nodes).text;
}

/** The text serializeConfig writes, with the origin of every line (a blank line has the next block's). */
export function serializeTracedConfig(nodes: readonly ConfigNode[]): TracedConfig {
  const text = new ConfigText();
  writeNodes(nodes, new ConfigTextWriter(text));
  return text.finish();
}

function writeNodes(nodes: readonly ConfigNode[], writer: ConfigTextWriter): void {
  for (const node of nodes) {
    if (node.kind === 'entry') writer.entry(node.key, node.values, node.origin);
    else if (node.kind === 'verbatim') writer.verbatim(node.lines, node.origin);
    else if (node.lua !== undefined) writer.luaBlock(node.name, node.lua, node.origin);
    else if (node.children === undefined) writer.directive(node.name, node.args, node.origin);
    else {
      const children = node.children;
      writer.block(node.name, node.args, node.origin, (inner) => writeNodes(children, inner));
    }
  }
}
