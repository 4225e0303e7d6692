-- Hosts that the running nginx.conf has no server for yet, routed by the
-- catch-all server until the reload that adds them (src/dataplane/live/
-- pendingRoutes.ts decides which hosts qualify). Hook, in the catch-all server:
--   server_rewrite_by_lua_block { portico_routes.route() }
-- A matching request gets the log variables its location block would set
-- ($proxy_upstream_name, and $portico_location: renderLogVariables.ts) and
-- continues in `location @portico_pending`, which proxies through the
-- balancer like a location with the ConfigMap's defaults; anything else
-- continues in the catch-all as before. A TLS host's plain HTTP request goes
-- to `@portico_pending_https_redirect` instead (its locations' redirect), and
-- its HTTPS answers get the HSTS header its server block adds.
--
-- The document: { "hosts": { "<host>": [ { "path", "exact", "regex", "backend"
-- (or null: 404), "namespace", "ingress", "service", "servicePort",
-- "locationPath", "httpsRedirect", "hsts" } ] } }. Paths match as the rendered locations would: an
-- exact path, or a prefix path itself (its `= /p` twin), wins; otherwise the
-- longest prefix `/p` of which the URI is `/p/...`; `/` matches everything.
-- A regex host's routes are all regex (its `location ~*` blocks): the first
-- whose pattern matches the URI case-insensitively, in the document's order
-- (nginx's file order), wins; a match that fails (PCRE's match limit) answers
-- 500, as nginx's location lookup does.
local cjson = require("cjson.safe")
local state = require("portico.state")

local ngx = ngx
local ngx_var = ngx.var
local ngx_exec = ngx.exec
local ngx_log = ngx.log
local ngx_exit = ngx.exit
local re_find = ngx.re.find
local type = type
local pairs = pairs
local ipairs = ipairs
local next = next
local tostring = tostring
local string_sub = string.sub
local string_byte = string.byte
local table_sort = table.sort
local table_concat = table.concat

local _M = {}

local DOCUMENT = "routes"
local VERSION_KEY = state.version_key(DOCUMENT)
-- src/dataplane/nginx/render/renderLua.ts
local PENDING_LOCATION = "@portico_pending"
local HTTPS_REDIRECT_LOCATION = "@portico_pending_https_redirect"
local NOT_FOUND_LOCATION = "@portico_pending_not_found"
local SLASH = string_byte("/")
local LOG_FIELDS = { "namespace", "ingress", "service", "servicePort", "locationPath" }
local FLAG_FIELDS = { "exact", "regex", "httpsRedirect", "hsts" }
-- As nginx's `~*` with pcre_jit on: caseless, JIT; compiled once per worker.
local REGEX_OPTIONS = "ijo"

local function route_error(route, where)
  if type(route) ~= "table" then
    return where .. " must be an object"
  end
  for _, field in ipairs(FLAG_FIELDS) do
    if type(route[field]) ~= "boolean" then
      return where .. "." .. field .. " must be a boolean"
    end
  end
  if route.regex then
    if type(route.path) ~= "string" or route.path == "" then
      return where .. ".path must be a non-empty pattern"
    end
    local _, _, err = re_find("", route.path, REGEX_OPTIONS)
    if err ~= nil then
      return where .. ".path does not compile: " .. err
    end
  elseif type(route.path) ~= "string" or string_byte(route.path, 1) ~= SLASH then
    return where .. ".path must be a string starting with /"
  end
  if route.backend == cjson.null then
    route.backend = nil
  elseif type(route.backend) ~= "string" or route.backend == "" then
    return where .. ".backend must be a non-empty string or null"
  end
  for _, field in ipairs(LOG_FIELDS) do
    if type(route[field]) ~= "string" then
      return where .. "." .. field .. " must be a string"
    end
  end
end

-- One host's routes, prepared for matching: a regex host's in their order;
-- otherwise exact paths (a prefix path's own `= /p` included, unless an exact
-- route has that path), and the prefix routes from the longest path down.
local function prepare(routes)
  for _, route in ipairs(routes) do
    -- $portico_location, as the location block's `set` writes it: the fields, space-separated, the path last.
    route.location = table_concat({ route.namespace, route.ingress, route.service, route.servicePort, route.locationPath }, " ")
  end
  if routes[1].regex then
    return { regexes = routes }
  end
  local exact, prefixes = {}, {}
  for _, route in ipairs(routes) do
    if route.exact then
      exact[route.path] = route
    else
      prefixes[#prefixes + 1] = route
    end
  end
  for _, route in ipairs(prefixes) do
    if exact[route.path] == nil then
      exact[route.path] = route
    end
  end
  table_sort(prefixes, function(a, b) return #a.path > #b.path end)
  return { exact = exact, prefixes = prefixes }
end

-- Validates a pushed document (the configuration endpoint refuses what fails)
-- and returns host -> prepared routes.
function _M.decode(body)
  local document, err = cjson.decode(body)
  if document == nil then
    return nil, "not JSON: " .. tostring(err)
  end
  if type(document) ~= "table" or type(document.hosts) ~= "table" then
    return nil, 'expected an object with a "hosts" object'
  end
  local hosts = {}
  for host, routes in pairs(document.hosts) do
    if type(host) ~= "string" or host == "" or type(routes) ~= "table" or #routes == 0 then
      return nil, "hosts." .. tostring(host) .. " must be a host name with an array of routes"
    end
    for i, route in ipairs(routes) do
      local where = "hosts." .. host .. "[" .. (i - 1) .. "]"
      local problem = route_error(route, where)
      if problem then
        return nil, problem
      end
      if route.regex ~= routes[1].regex then
        return nil, where .. ".regex differs from the host's first route (a host is in regex mode or not)"
      end
    end
    hosts[host] = prepare(routes)
  end
  return hosts
end

-- The first regex route matching `uri`, or nil; nil and the error when PCRE fails.
local function match_regex(regexes, uri)
  for _, candidate in ipairs(regexes) do
    local from, _, err = re_find(uri, candidate.path, REGEX_OPTIONS)
    if from ~= nil then
      return candidate
    end
    if err ~= nil then
      return nil, err
    end
  end
end

-- The route of `uri` among one host's prepared routes, or nil (and the error of a failed regex match).
local function match(prepared, uri)
  if prepared.regexes ~= nil then
    return match_regex(prepared.regexes, uri)
  end
  local route = prepared.exact[uri]
  if route ~= nil then
    return route
  end
  for _, candidate in ipairs(prepared.prefixes) do
    local path = candidate.path
    if path == "/" then
      return candidate
    end
    local length = #path
    if string_sub(uri, 1, length) == path and string_byte(uri, length + 1) == SLASH then
      return candidate
    end
  end
end

-- Worker-local: decoded again only when the document's version moves.
local synced_version = nil
local hosts = {}

local function sync()
  local moved, body, version = state.moved(DOCUMENT, VERSION_KEY, synced_version)
  if not moved then
    return
  end
  if body == nil then
    hosts = {}
  else
    local decoded, err = _M.decode(body)
    if decoded == nil then
      -- Cannot happen for a body the endpoint accepted.
      ngx_log(ngx.ERR, "routes version ", version, " is unusable, keeping the previous ones: ", err)
    else
      hosts = decoded
    end
  end
  synced_version = version
end

-- server_rewrite_by_lua in the catch-all server.
function _M.route()
  sync()
  if next(hosts) == nil then
    return
  end
  local prepared = hosts[ngx_var.host]
  if prepared == nil then
    return
  end
  local route, err = match(prepared, ngx_var.uri)
  if err ~= nil then
    ngx_log(ngx.ERR, "pending route of ", ngx_var.host, ": regex match failed: ", err)
    return ngx_exit(ngx.HTTP_INTERNAL_SERVER_ERROR)
  end
  if route == nil then
    return
  end
  local var = ngx_var
  var.proxy_upstream_name = route.backend or "-"
  var.portico_location = route.location
  -- As the location block's rewrite-phase `if` does, before anything else.
  if route.httpsRedirect and var.pass_access_scheme == "http" then
    return ngx_exec(HTTPS_REDIRECT_LOCATION)
  end
  -- Set on every route: the server block's own `set` does not run before this
  -- phase's exec, and a variable read unset is logged as uninitialized.
  var.portico_pending_hsts = route.hsts and var.hsts_header or "" -- empty over plain HTTP, as the server block's map
  if route.backend == nil then
    return ngx_exec(NOT_FOUND_LOCATION)
  end
  return ngx_exec(PENDING_LOCATION)
end

return _M
