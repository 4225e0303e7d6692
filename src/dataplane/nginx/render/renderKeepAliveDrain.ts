// Reloads without lost keep-alive requests (lua/portico/keepalive_drain.lua):
// while the controller reloads nginx, responses say `Connection: close`, so
// clients close their kept-alive connections themselves instead of having the
// retiring workers close them under a request in flight. Outside a reload the
// header filter costs each response one shared dict lookup.
import { raw, literal } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { luaBind, luaCall } from './luaCall.js';

const MODULE = 'portico.keepalive_drain';

/** Where the controller starts (PUT ?seconds=N) and ends (DELETE) the drain, on the configuration server. */
export const KEEPALIVE_DRAIN_PATH = '/configuration/keepalive-drain';

/** For init_by_lua_block. */
export const keepAliveDrainBind = luaBind(MODULE);

/** At the http level: no location of Portico's has a header filter of its own, so every response passes this one. */
export function renderKeepAliveDrainFilter(http: ConfigBuilder): void {
  http.luaBlock('header_filter_by_lua_block', luaCall(MODULE, 'header_filter'));
}

/** In the configuration server. */
export function renderKeepAliveDrainEndpoint(server: ConfigBuilder): void {
  server.block('location', [raw.keyword('='), literal(KEEPALIVE_DRAIN_PATH)], (location) => {
    location.luaBlock('content_by_lua_block', luaCall(MODULE, 'handle'));
  });
}
