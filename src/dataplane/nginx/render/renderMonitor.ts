// The request-metrics hook (--enable-metrics): lua/portico/monitor.lua learns
// where to send records in init_by_lua, and every proxied location calls it in
// its log phase. nginx allows one log_by_lua_block per location, so these
// calls join the balancer's in the same block (renderLua.ts).
import { luaBind, luaCall, type LuaCall } from './luaCall.js';
import type { RenderContext } from './renderContext.js';

const MODULE = 'portico.monitor';

/** For init_by_lua_block: the batch listener's port and token, and the batch size. */
export function monitorInitCalls(context: RenderContext): LuaCall[] {
  const { monitor } = context;
  if (!monitor) return [];
  return [luaBind(MODULE), luaCall(MODULE, 'init', { port: monitor.port, token: monitor.token, max_batch_size: monitor.maxBatchSize })];
}

/** For a proxied location's log_by_lua_block: record the request. */
export function monitorLogCalls(context: RenderContext): LuaCall[] {
  return context.monitor ? [luaCall(MODULE, 'call')] : [];
}
