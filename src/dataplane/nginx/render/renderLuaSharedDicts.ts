// The http block's lua_shared_dicts: Portico's own, each at least its own
// size (lua-shared-dicts may enlarge it, by its name or by the name of the
// ingress-nginx dict whose data it holds), then the extra dicts lua-shared-dicts
// names (luaSharedDictSettings.ts).
import type { LuaSharedDict } from '../../../model/settings/keys/luaSharedDictSettings.js';
import { nginxSizeBytes } from '../../../model/settings/nginxLimits.js';
import { raw } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';

export interface PorticoSharedDict {
  readonly name: string;
  /** nginx size */
  readonly size: string;
  /** The ingress-nginx dicts whose data this one holds. */
  readonly ingressNginxNames: readonly string[];
}

export function renderLuaSharedDicts(http: ConfigBuilder, own: readonly PorticoSharedDict[], requested: readonly LuaSharedDict[]): void {
  const claimed = new Set<string>();
  for (const dict of own) {
    const names = [dict.name, ...dict.ingressNginxNames];
    names.forEach((name) => claimed.add(name));
    const larger = requested.filter((request) => names.includes(request.name) && BigInt(request.kilobytes) * 1024n > sizeBytes(dict.size));
    const kilobytes = Math.max(0, ...larger.map((request) => request.kilobytes));
    http.directive('lua_shared_dict', raw.zoneName(dict.name), raw.size(kilobytes > 0 ? `${kilobytes}k` : dict.size));
  }
  for (const extra of requested) {
    if (!claimed.has(extra.name)) http.directive('lua_shared_dict', raw.zoneName(extra.name), raw.size(`${extra.kilobytes}k`));
  }
}

function sizeBytes(size: string): bigint {
  const bytes = nginxSizeBytes(size);
  if (bytes === undefined) throw new Error(`invalid lua_shared_dict size: ${size}`);
  return bytes;
}
