// The statements of a `*_by_lua_block`: calls into Portico's own Lua modules,
// built from identifiers and integers only, so no string from a Kubernetes
// object can ever become Lua code.

const MODULE = /^portico(\.[a-z_]+)+$/;
const FUNCTION = /^[a-z_]+$/;
const FIELD = /^[a-z_]+$/;

const issuingKey: unique symbol = Symbol('LuaCall');

/** One Lua statement; only luaCall() and luaRequire() create them. */
export class LuaCall {
  constructor(
    key: typeof issuingKey,
    readonly code: string,
  ) {
    if (key !== issuingKey) throw new Error('LuaCalls are created by luaCall() and luaRequire() only');
  }
}

/** `require("<module>").<fn>({ field = integer, ... })`, or without arguments. */
export function luaCall(module: string, fn: string, options?: Readonly<Record<string, number>>): LuaCall {
  if (!MODULE.test(module) || !FUNCTION.test(fn)) throw new Error(`invalid Lua call: ${module}.${fn}`);
  const fields = Object.entries(options ?? {}).map(([field, value]) => {
    if (!FIELD.test(field) || !Number.isSafeInteger(value)) throw new Error(`invalid Lua option: ${field}=${value}`);
    return `${field} = ${value}`;
  });
  return new LuaCall(issuingKey, `require("${module}").${fn}(${options ? `{ ${fields.join(', ')} }` : ''})`);
}

/** `require("<module>")`: loads a module (in init_by_lua, so every worker inherits it loaded). */
export function luaRequire(module: string): LuaCall {
  if (!MODULE.test(module)) throw new Error(`invalid Lua module: ${module}`);
  return new LuaCall(issuingKey, `require("${module}")`);
}
