-- luacheck's settings for lua/ and test/lua/ (scripts/test.sh runs it).
-- ngx_lua: LuaJIT's standard library plus lua-nginx-module's globals `ngx` and
-- `ndk`, read-only apart from the fields a request may set (ngx.var, ngx.ctx,
-- ngx.status, ngx.header, ...); a misspelt ngx.* field is a finding.
std = "ngx_lua"
-- The project's line length (as the TypeScript's).
max_line_length = 140

-- The modules init_by_lua_block binds for nginx.conf's hooks to call through
-- (src/dataplane/nginx/render/renderLua.ts, luaBind: portico.x -> portico_x);
-- only that block assigns them.
read_globals = {
  "portico_balancer",
  "portico_configuration",
  "portico_certificate",
  "portico_routes",
  "portico_monitor",
  "portico_external_auth",
  "portico_authentication",
}
