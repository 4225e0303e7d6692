// The statements of a `*_by_lua_block`: calls into Portico's own Lua modules,
// built from identifiers and integers only, so no string from a Kubernetes
// object can ever become Lua code.
//
// init_by_lua binds each module to a global (luaBind), and the per-request
// hooks call through it (luaCall), as ingress-nginx's hooks do: `require` is a
// C function that LuaJIT cannot compile, and calling it from the balancer phase
// cost about 0.7 µs of a request's 21 µs of user CPU (bench/README.md).

const MODULE = /^portico(\.[a-z_]+)+$/;
const FUNCTION = /^[a-z_]+$/;
const FIELD = /^[a-z_]+$/;

const issuingKey: unique symbol = Symbol('LuaCall');

/** One Lua statement; only luaBind() and luaCall() create them. */
export class LuaCall {
  constructor(
    key: typeof issuingKey,
    readonly code: string,
  ) {
    if (key !== issuingKey) throw new Error('LuaCalls are created by luaBind() and luaCall() only');
  }
}

/** The global init_by_lua binds a module to: `portico.balancer` → `portico_balancer`. */
function moduleGlobal(module: string, what: string): string {
  if (!MODULE.test(module)) throw new Error(`invalid Lua ${what}: ${module}`);
  return module.replaceAll('.', '_');
}

/** `portico_x = require("portico.x")`: for init_by_lua, so every worker inherits the module loaded and bound. */
export function luaBind(module: string): LuaCall {
  return new LuaCall(issuingKey, `${moduleGlobal(module, 'module')} = require("${module}")`);
}

/** An option's value: an integer, a boolean, or a list of integers. */
export type LuaOption = number | boolean | readonly number[];

function luaValue(field: string, value: LuaOption): string {
  if (typeof value === 'boolean') return String(value);
  const integers = typeof value === 'number' ? [value] : value;
  if (!FIELD.test(field) || !integers.every((integer) => Number.isSafeInteger(integer)))
    throw new Error(`invalid Lua option: ${field}=${String(value)}`);
  return typeof value === 'number' ? String(value) : `{ ${value.join(', ')} }`;
}

/** `portico_x.<fn>({ field = value, ... })`, or without arguments; the module must be bound (luaBind) in init_by_lua. */
export function luaCall(module: string, fn: string, options?: Readonly<Record<string, LuaOption>>): LuaCall {
  if (!FUNCTION.test(fn)) throw new Error(`invalid Lua call: ${module}.${fn}`);
  const target = moduleGlobal(module, 'call');
  const fields = Object.entries(options ?? {}).map(([field, value]) => {
    if (!FIELD.test(field)) throw new Error(`invalid Lua option: ${field}`);
    return `${field} = ${luaValue(field, value)}`;
  });
  return new LuaCall(issuingKey, `${target}.${fn}(${options ? `{ ${fields.join(', ')} }` : ''})`);
}
