// The typed builder of nginx configuration: the single place that writes
// nginx.conf text. Names are Portico's own identifiers, arguments are
// `Argument`s (arguments.ts), so user data can only ever be a whole argument.
import { Argument } from './arguments.js';
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
}

/** A line of a `map` or `geo` block: `key value;`, where the key is data (may be quoted). */
export interface ConfigEntry {
  readonly kind: 'entry';
  readonly key: Argument;
  readonly values: readonly Argument[];
}

export type ConfigNode = ConfigDirective | ConfigEntry;

const DIRECTIVE_NAME = /^[a-z_][a-z0-9_]*$/;

export class ConfigBuilder {
  readonly #nodes: ConfigNode[] = [];

  get nodes(): readonly ConfigNode[] {
    return this.#nodes;
  }

  directive(name: string, ...args: Argument[]): this {
    this.#nodes.push({ kind: 'directive', name: checkedName(name), args: args.map(checkedArg) });
    return this;
  }

  block(name: string, args: readonly Argument[], body: (inner: ConfigBuilder) => void): this {
    const inner = new ConfigBuilder();
    body(inner);
    this.#nodes.push({ kind: 'directive', name: checkedName(name), args: args.map(checkedArg), children: inner.nodes });
    return this;
  }

  /** A `*_by_lua_block` whose body is calls into Portico's Lua modules, in order. */
  luaBlock(name: string, ...calls: LuaCall[]): this {
    if (!name.endsWith('_by_lua_block')) throw new Error(`not a Lua block directive: ${name}`);
    if (calls.length === 0) throw new Error(`empty Lua block: ${name}`);
    if (!calls.every((call) => call instanceof LuaCall)) throw new Error('Lua blocks take LuaCalls');
    this.#nodes.push({ kind: 'directive', name: checkedName(name), args: [], lua: calls });
    return this;
  }

  /** A `map`/`geo` line. */
  entry(key: Argument, ...values: Argument[]): this {
    this.#nodes.push({ kind: 'entry', key: checkedArg(key), values: values.map(checkedArg) });
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
  const lines: string[] = [];
  writeNodes(nodes, 0, lines);
  return `${lines.join('\n')}\n`;
}

function writeNodes(nodes: readonly ConfigNode[], depth: number, lines: string[]): void {
  const indent = INDENT.repeat(depth);
  nodes.forEach((node, index) => {
    if (node.kind === 'entry') {
      lines.push(`${indent}${[node.key, ...node.values].map((arg) => arg.token).join(' ')};`);
      return;
    }
    const head = [node.name, ...node.args.map((arg) => arg.token)].join(' ');
    if (node.lua !== undefined) {
      lines.push(`${indent}${head} {`, ...node.lua.map((call) => `${indent}${INDENT}${call.code}`), `${indent}}`);
      return;
    }
    if (node.children === undefined) {
      lines.push(`${indent}${head};`);
      return;
    }
    if (index > 0) lines.push('');
    lines.push(`${indent}${head} {`);
    writeNodes(node.children, depth + 1, lines);
    lines.push(`${indent}}`);
  });
}
