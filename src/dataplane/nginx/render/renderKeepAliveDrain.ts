// Reloads without lost keep-alive requests (lua/portico/keepalive_drain.lua):
// while the controller reloads nginx, proxied responses say `Connection:
// close`, so clients close their kept-alive connections themselves instead of
// having the retiring workers close them under a request in flight. The
// balancer's first attempt asks for it (no hook of its own in nginx.conf, so
// nothing runs per request but one shared dict lookup); here only the
// controller's endpoint.
import { raw, literal } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { luaBind, luaCall } from './luaCall.js';

const MODULE = 'portico.keepalive_drain';

/** Where the controller starts (PUT ?seconds=N) and ends (DELETE) the drain, on the configuration server. */
export const KEEPALIVE_DRAIN_PATH = '/configuration/keepalive-drain';

/** For init_by_lua_block. */
export const keepAliveDrainBind = luaBind(MODULE);

/** In the configuration server. */
export function renderKeepAliveDrainEndpoint(server: ConfigBuilder): void {
  server.block('location', [raw.keyword('='), literal(KEEPALIVE_DRAIN_PATH)], (location) => {
    location.luaBlock('content_by_lua_block', luaCall(MODULE, 'handle'));
  });
}
