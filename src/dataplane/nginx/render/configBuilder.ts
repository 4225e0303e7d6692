// The typed builder of nginx configuration: the single place that writes
// nginx.conf text. Names are Portico's own identifiers, arguments are
// `Argument`s (arguments.ts), so user data can only ever be a whole argument.
// Every node records its origin (configOrigins.ts): the object a line nginx
// refuses is traced back to.
import { Argument } from './arguments.js';
import { PORTICO_ORIGIN, type TracedConfig } from './configOrigins.js';
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
  readonly #nodes: ConfigNode[] = [];
  #origin: number;

  constructor(origin = PORTICO_ORIGIN) {
    this.#origin = origin;
  }

  get nodes(): readonly ConfigNode[] {
    return this.#nodes;
  }

  directive(name: string, ...args: Argument[]): this {
    this.#nodes.push({ kind: 'directive', name: checkedName(name), args: args.map(checkedArg), origin: this.#origin });
    return this;
  }

  block(name: string, args: readonly Argument[], body: (inner: ConfigBuilder) => void): this {
    const inner = new ConfigBuilder(this.#origin);
    body(inner);
    this.#nodes.push({
      kind: 'directive',
      name: checkedName(name),
      args: args.map(checkedArg),
      children: inner.nodes,
      origin: this.#origin,
    });
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
    this.#nodes.push({ kind: 'verbatim', lines, origin: this.#origin });
    return this;
  }

  /** A `*_by_lua_block` whose body is calls into Portico's Lua modules, in order. */
  luaBlock(name: string, ...calls: LuaCall[]): this {
    if (!name.endsWith('_by_lua_block')) throw new Error(`not a Lua block directive: ${name}`);
    if (calls.length === 0) throw new Error(`empty Lua block: ${name}`);
    if (!calls.every((call) => call instanceof LuaCall)) throw new Error('Lua blocks take LuaCalls');
    this.#nodes.push({ kind: 'directive', name: checkedName(name), args: [], lua: calls, origin: this.#origin });
    return this;
  }

  /** A `map`/`geo` line. */
  entry(key: Argument, ...values: Argument[]): this {
    this.#nodes.push({ kind: 'entry', key: checkedArg(key), values: values.map(checkedArg), origin: this.#origin });
    return this;
  }
}

function checkedName(name: string): string {
  if (!DIRECTIVE_NAME.test(name)) throw new Error(`invalid nginx directive name: ${JSON.stringify(name)}`);
  return name;
}

// A runtime check as well as the type: a string smuggled in through `any` must not reach the file.
function checkedArg(arg: Argument): Argument {
  if (!(arg instanceof Argument)) throw new Error(`nginx arguments must be Argument values, got ${typeof arg}`);
  return arg;
}

const INDENT = '    ';

/** nginx.conf text: one directive per line, blocks indented, a blank line before a block that follows a sibling. */
export function serializeConfig(nodes: readonly ConfigNode[]): string {
  return serializeTracedConfig(nodes).text;
}

/** The text serializeConfig writes, with the origin of every line (a blank line has the next block's). */
export function serializeTracedConfig(nodes: readonly ConfigNode[]): TracedConfig {
  const out: Lines = { lines: [], origins: [] };
  writeNodes(nodes, 0, out);
  return { text: `${out.lines.join('\n')}\n`, lineOrigins: Uint32Array.from(out.origins) };
}

interface Lines {
  readonly lines: string[];
  readonly origins: number[];
}

function writeLine(out: Lines, line: string, origin: number): void {
  out.lines.push(line);
  out.origins.push(origin);
}

function writeNodes(nodes: readonly ConfigNode[], depth: number, out: Lines): void {
  const indent = INDENT.repeat(depth);
  nodes.forEach((node, index) => {
    if (node.kind === 'entry') {
      writeLine(out, `${indent}${[node.key, ...node.values].map((arg) => arg.token).join(' ')};`, node.origin);
      return;
    }
    if (node.kind === 'verbatim') {
      for (const line of node.lines) writeLine(out, line.trim() === '' ? '' : `${indent}${line}`, node.origin);
      return;
    }
    const head = [node.name, ...node.args.map((arg) => arg.token)].join(' ');
    if (node.lua !== undefined) {
      writeLine(out, `${indent}${head} {`, node.origin);
      for (const call of node.lua) writeLine(out, `${indent}${INDENT}${call.code}`, node.origin);
      writeLine(out, `${indent}}`, node.origin);
      return;
    }
    if (node.children === undefined) {
      writeLine(out, `${indent}${head};`, node.origin);
      return;
    }
    if (index > 0) writeLine(out, '', node.origin);
    writeLine(out, `${indent}${head} {`, node.origin);
    writeNodes(node.children, depth + 1, out);
    writeLine(out, `${indent}}`, node.origin);
  });
}
