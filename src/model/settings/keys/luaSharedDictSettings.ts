// lua-shared-dicts: `name: size` pairs, as ingress-nginx reads them (a bare
// size is megabytes, `k` kilobytes, `m` megabytes; at most 200 MB each and 100
// dicts). A name of Portico's own dicts, or of the ingress-nginx dict whose
// data it holds, can only enlarge it; any other name is one more dict, for
// Lua in snippets (renderLuaSharedDicts.ts).
import type { SpecTable } from '../settingSpec.js';
import { quoteValue, type ValueParser } from '../valueSyntax.js';

export interface LuaSharedDict {
  name: string;
  kilobytes: number;
}

export interface LuaSharedDictSettings {
  /** lua-shared-dicts, sorted by name */
  luaSharedDicts: LuaSharedDict[];
}

export const LUA_SHARED_DICT_DEFAULTS: LuaSharedDictSettings = { luaSharedDicts: [] };

/** ingress-nginx's bounds (configmap.go). */
const MAX_DICT_KILOBYTES = 204800;
const MAX_DICTS = 100;
/** nginx cannot set up an 8k dict (ngx_slab_alloc() fails: the slab's own header takes a page); 12k, measured with nginx -t, works. */
const MIN_DICT_KILOBYTES = 12;

/** A zone name nginx takes unquoted: no `:` (it ends `name:size` elsewhere) and nothing nginx parses. */
const DICT_NAME = /^[A-Za-z0-9_]{1,64}$/;
const DICT_SIZE = /^([0-9]{1,6})([kKmM]?)$/;

const EXPECTED =
  `a ","-separated list of "name: size" with names of letters, digits and "_", ` +
  `sizes from ${MIN_DICT_KILOBYTES}k to ${MAX_DICT_KILOBYTES}k (a bare number is megabytes), at most ${MAX_DICTS} names`;

const parseLuaSharedDicts: ValueParser<LuaSharedDict[]> = (text) => {
  const dicts = new Map<string, number>();
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const [name = '', size = '', extra] = pair.replaceAll(' ', '').split(':');
    const [, digits, unit = ''] = DICT_SIZE.exec(size) ?? [];
    const kilobytes = digits === undefined ? NaN : Number(digits) * (unit.toLowerCase() === 'k' ? 1 : 1024);
    const valid = extra === undefined && DICT_NAME.test(name) && kilobytes >= MIN_DICT_KILOBYTES && kilobytes <= MAX_DICT_KILOBYTES;
    if (!valid) return { ok: false, expected: `${EXPECTED} (${quoteValue(pair.trim())} is not one)` };
    dicts.set(name, kilobytes);
  }
  if (dicts.size > MAX_DICTS) return { ok: false, expected: `${EXPECTED} (it has ${dicts.size})` };
  const sorted = [...dicts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, kilobytes]) => ({ name, kilobytes }));
  return { ok: true, value: sorted };
};

export const LUA_SHARED_DICT_SPECS: SpecTable<LuaSharedDictSettings> = {
  luaSharedDicts: { key: 'lua-shared-dicts', parse: parseLuaSharedDicts },
};
