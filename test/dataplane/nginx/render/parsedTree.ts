// Queries over parsed nginx configuration trees, for assertions.
import type { ConfigNode } from '../../../../src/dataplane/nginx/render/configBuilder.js';
import type { ParsedDirective } from './nginxConfTokenizer.js';

export function named(nodes: readonly ParsedDirective[] | undefined, name: string): ParsedDirective[] {
  return (nodes ?? []).filter((node) => node.name === name);
}

/** The one directive called `name` among `nodes`; fails when there are none or several. */
export function only(nodes: readonly ParsedDirective[] | undefined, name: string): ParsedDirective {
  const found = named(nodes, name);
  const [first] = found;
  if (first === undefined || found.length !== 1) throw new Error(`expected one "${name}", found ${found.length}`);
  return first;
}

export function servers(tree: readonly ParsedDirective[]): ParsedDirective[] {
  return named(only(tree, 'http').children, 'server');
}

/** The server whose server_name argument (as nginx reads it) is `serverName`. */
export function serverNamed(tree: readonly ParsedDirective[], serverName: string): ParsedDirective {
  const found = servers(tree).filter((server) =>
    // Any of its names: hosts written alike share one block (sharedServerBlocks.ts).
    named(server.children, 'server_name').some((directive) => directive.args.includes(serverName)),
  );
  const [first] = found;
  if (first === undefined || found.length !== 1) throw new Error(`expected one server "${serverName}", found ${found.length}`);
  return first;
}

/** The location block with exactly these arguments. */
export function locationOf(server: ParsedDirective, ...args: string[]): ParsedDirective {
  const found = named(server.children, 'location').filter((location) => JSON.stringify(location.args) === JSON.stringify(args));
  const [first] = found;
  if (first === undefined || found.length !== 1) throw new Error(`expected one location ${JSON.stringify(args)}, found ${found.length}`);
  return first;
}

/** The arguments of every `name` directive directly in `block`. */
export function argsOf(block: ParsedDirective, name: string): string[][] {
  return named(block.children, name).map((directive) => directive.args);
}

/** Every directive of the tree, depth first. */
export function allDirectives(tree: readonly ParsedDirective[]): ParsedDirective[] {
  return tree.flatMap((node) => [node, ...allDirectives(node.children ?? [])]);
}

/** The shape of a tree: names, argument counts, Lua bodies (Portico's constants) and nesting, without the argument values. */
export interface Skeleton {
  name: string;
  argCount: number;
  children?: Skeleton[];
  lua?: string[];
}

export function skeleton(tree: readonly ParsedDirective[]): Skeleton[] {
  return tree.map((node) => ({
    name: node.name,
    argCount: node.args.length,
    ...(node.children === undefined ? {} : { children: skeleton(node.children) }),
    ...(node.lua === undefined ? {} : { lua: node.lua }),
  }));
}

/** The builder's tree as nginx should read it back: each argument's `word`. */
export function expectedWords(nodes: readonly ConfigNode[]): ParsedDirective[] {
  return nodes.map((node) => {
    if (node.kind === 'entry') return { name: node.key.word, args: node.values.map((value) => value.word) };
    if (node.kind === 'verbatim') throw new Error(`a verbatim line has no expected words: ${node.lines.join(' ')}`);
    const directive: ParsedDirective = { name: node.name, args: node.args.map((arg) => arg.word) };
    if (node.lua !== undefined) return { ...directive, lua: node.lua.map((call) => call.code) };
    return node.children === undefined ? directive : { ...directive, children: expectedWords(node.children) };
  });
}

/** Every `*_by_lua_block` of the tree with its Lua lines, depth first, as `[name, ...lines]`. */
export function luaBlocks(tree: readonly ParsedDirective[]): string[][] {
  return allDirectives(tree).flatMap((node) => (node.lua === undefined ? [] : [[node.name, ...node.lua]]));
}

/**
 * The arguments of `name` that nginx applies in `block` (a block of `tree`): those of the innermost
 * enclosing level that has any, as nginx inherits proxy_set_header, proxy_read_timeout... from
 * server and http unless the block writes its own.
 */
export function appliedArgs(tree: readonly ParsedDirective[], block: ParsedDirective, name: string): string[][] {
  const path = pathTo(tree, block);
  if (path === undefined) throw new Error(`block ${block.name} ${JSON.stringify(block.args)} is not in the tree`);
  for (const level of path.reverse()) {
    const own = argsOf(level, name);
    if (own.length > 0) return own;
  }
  return [];
}

function pathTo(nodes: readonly ParsedDirective[], block: ParsedDirective): ParsedDirective[] | undefined {
  for (const node of nodes) {
    if (node === block) return [node];
    const below = pathTo(node.children ?? [], block);
    if (below !== undefined) return [node, ...below];
  }
  return undefined;
}
