-- Cookie affinity (annotation affinity: cookie), ingress-nginx's sticky_balanced
-- and sticky_persistent. The cookie holds "<key>|<backend key>":
--   balanced:   a random key, mapped through a consistent-hash ring, so scaling
--               moves ~1/n of the sessions and spreads load again;
--   persistent: md5(backend name .. "host:port") of the endpoint itself, so a
--               session never moves while its endpoint exists (the same keys
--               as ingress-nginx: sessions survive a migration).
-- The backend key, md5(md5(name) .. name) as in ingress-nginx, tells canary
-- routing which backend a client is affinitized to. "name" in both is
-- ingress-nginx's `<namespace>-<service>-<port>` (the document's upstreamName),
-- not Portico's unambiguous backend name, so ingress-nginx's cookies stay valid.
-- The cookie is set only on the affinity's locations (affinity.locations, as
-- ingress-nginx's per-path Locations): the backend's other locations balance
-- by a cookie the client already has, and issue none.
local chash = require("portico.balancer.chash")
local untried = require("portico.balancer.untried")

local ngx = ngx
local ngx_var = ngx.var
local ngx_md5 = ngx.md5
local ngx_cookie_time = ngx.cookie_time
local type = type
local ipairs = ipairs
local pairs = pairs
local tostring = tostring
local setmetatable = setmetatable
local string_find = string.find
local string_sub = string.sub
local string_format = string.format
local table_concat = table.concat
local table_sort = table.sort
local math_random = math.random
local math_floor = math.floor

local _M = {}

-- Clients that reject a SameSite=None cookie outright (ingress-nginx's list,
-- after https://www.chromium.org/updates/same-site/incompatible-clients).
function _M.same_site_none_compatible(user_agent)
  if user_agent == nil then
    return true
  end
  local function has(text)
    return string_find(user_agent, text, 1, true) ~= nil
  end
  if has("Chrome/4") or has("Chrome/5") or has("Chrome/6")
    or has("CPU iPhone OS 12") or has("iPad; CPU OS 12") then
    return false
  end
  return not (has("Macintosh") and has("Intel Mac OS X 10_14") and has("Safari") and not has("Chrome"))
end

-- The Set-Cookie value. request: { now = ngx.time(), https = bool,
-- user_agent = string|nil, location_path = string|nil }. Attribute order as
-- lua-resty-cookie, which ingress-nginx uses.
function _M.format_cookie(cookie, value, request)
  local parts = { cookie.name .. "=" .. value }
  if cookie.expires ~= nil then
    parts[#parts + 1] = "Expires=" .. ngx_cookie_time(request.now + cookie.expires)
  end
  if cookie.maxAge ~= nil then
    parts[#parts + 1] = "Max-Age=" .. cookie.maxAge
  end
  if cookie.domain ~= nil then
    parts[#parts + 1] = "Domain=" .. cookie.domain
  end
  -- No path: the location's, as ingress-nginx; a regex location path (or none) is no cookie path.
  local path = cookie.path
  if path == nil then
    path = request.location_path
    if type(path) ~= "string" or string_find(path, "^/[^%c;]*$") == nil or string_find(path, "[()|$^*+?{}%[%]\\]") then
      path = "/"
    end
  end
  parts[#parts + 1] = "Path=" .. path
  local secure = cookie.secure
  if secure == nil then
    secure = request.https
  end
  if secure then
    parts[#parts + 1] = "Secure"
  end
  parts[#parts + 1] = "HttpOnly"
  local same_site = cookie.sameSite
  if same_site ~= nil and not (same_site == "None" and cookie.conditionalSameSiteNone
      and not _M.same_site_none_compatible(request.user_agent)) then
    parts[#parts + 1] = "SameSite=" .. same_site
  end
  if cookie.partitioned then
    parts[#parts + 1] = "Partitioned"
  end
  return table_concat(parts, "; ")
end

-- Appends to the response's Set-Cookie values; a second cookie of this
-- request (after a failure) replaces the first instead of adding to it.
local function add_set_cookie(cookie)
  local ctx = ngx.ctx
  local previous = ctx.portico_set_cookie
  local existing = ngx.header["Set-Cookie"]
  local values = {}
  if type(existing) == "string" then
    existing = { existing }
  end
  if existing ~= nil then
    for _, value in ipairs(existing) do
      if value ~= previous then
        values[#values + 1] = value
      end
    end
  end
  values[#values + 1] = cookie
  ngx.header["Set-Cookie"] = values
  ctx.portico_set_cookie = cookie
end

-- affinity.locations as host -> { [path] = true }; nil (absent) means every location.
local function location_sets(locations)
  if locations == nil then
    return nil
  end
  local sets = {}
  for host, paths in pairs(locations) do
    local set = {}
    for _, path in ipairs(paths) do
      set[path] = true
    end
    sets[host] = set
  end
  return sets
end

local function locations_text(locations)
  if locations == nil then
    return "*"
  end
  local hosts = {}
  for host, paths in pairs(locations) do
    hosts[#hosts + 1] = host .. "\1" .. table_concat(paths, "\1")
  end
  table_sort(hosts)
  return table_concat(hosts, "\2")
end

local function settings(backend)
  local affinity = backend.affinity
  local c = affinity.cookie
  return table_concat({ affinity.mode, c.name, tostring(c.path), tostring(c.domain), tostring(c.maxAge),
    tostring(c.expires), tostring(c.secure), tostring(c.sameSite), tostring(c.conditionalSameSiteNone),
    tostring(c.changeOnFailure), tostring(c.partitioned), locations_text(affinity.locations) }, "\0")
end

-- ingress-nginx's should_set_cookie(): whether this location is one of the
-- affinity's (its Ingress asked for affinity), by the request's host, else
-- its one-label wildcard, else the server's own name (the catch-all's "_").
-- Only when a cookie is to be issued: a request that has one never asks.
function _M.sets_cookie(sets, host, server_name, location_path)
  if sets == nil then
    return true
  end
  local paths = host and sets[host]
  if paths == nil and host ~= nil then
    local dot = string_find(host, ".", 1, true)
    paths = dot and sets["*" .. string_sub(host, dot)]
  end
  if paths == nil and server_name ~= nil then
    paths = sets[server_name]
  end
  return paths ~= nil and location_path ~= nil and paths[location_path] == true
end

-- Shared by both modes; each mode supplies sync(), find(key), pick(tried).
local common = {}

function common.is_affinitized(self)
  local raw = ngx_var[self.cookie_var]
  if raw == nil then
    return false
  end
  local bar = string_find(raw, "|", 1, true)
  return bar ~= nil and string_sub(raw, bar + 1) == self.backend_key
end

local function cookie_key(self)
  local raw = ngx_var[self.cookie_var]
  if raw == nil or raw == "" then
    return nil
  end
  local bar = string_find(raw, "|", 1, true)
  return bar and string_sub(raw, 1, bar - 1) or raw
end

local function issue(self, key)
  if not _M.sets_cookie(self.location_sets, ngx_var.host, ngx_var.server_name, ngx_var.location_path) then
    return
  end
  add_set_cookie(_M.format_cookie(self.cookie, key .. "|" .. self.backend_key, {
    now = ngx.time(),
    https = ngx_var.https == "on",
    user_agent = ngx_var.http_user_agent,
    location_path = ngx_var.location_path,
  }))
end

-- tried: nil on the first attempt; on a retry after a failure, the peers
-- tried. A client's own endpoint is kept on retries (the session matters more
-- than the retry) unless changeOnFailure; a client that had no (valid) cookie
-- simply gets another endpoint, and its cookie follows.
function common.balance(self, tried)
  local ctx = ngx.ctx
  if tried == nil then
    local key = cookie_key(self)
    local peer = key and self:find(key)
    if peer ~= nil then
      ctx.portico_sticky_peer = peer
      return peer
    end
  else
    local kept = ctx.portico_sticky_peer
    if kept ~= nil and not self.cookie.changeOnFailure then
      return kept
    end
  end
  local peer, key = self:pick(tried)
  ctx.portico_sticky_peer = nil
  issue(self, key)
  return peer
end

local function new(implementation, backend)
  local name = backend.upstreamName or backend.name
  local cookie = backend.affinity.cookie
  local self = setmetatable({
    algorithm = implementation.name,
    settings = settings(backend),
    cookie = cookie,
    cookie_var = "cookie_" .. cookie.name,
    location_sets = location_sets(backend.affinity.locations),
    name = name,
    backend_key = ngx_md5(ngx_md5(name) .. name),
  }, implementation.mt)
  self:sync(backend)
  return self
end

local function define(name)
  local implementation = { name = name, settings = settings }
  for key, fn in pairs(common) do
    implementation[key] = fn
  end
  implementation.mt = { __index = implementation }
  implementation.new = function(backend)
    return new(implementation, backend)
  end
  return implementation
end

-- balanced ---------------------------------------------------------------
local balanced = define("sticky_balanced")

function balanced.sync(self, backend)
  self.ring = chash.ring_new(backend.endpoints)
end

function balanced.find(self, key)
  return (chash.ring_find(self.ring, key)) -- every key has an endpoint
end

-- A new random key per try: with one of two endpoints down, 20 tries all
-- landing on it has odds of 1e-6 (ingress-nginx's bound).
local NEW_KEY_TRIES = 20

function balanced.pick(self, tried)
  local peer, key
  for _ = 1, NEW_KEY_TRIES do
    key = string_format("%d.%d.%d", ngx.worker.pid(), math_floor(ngx.now() * 1000), math_random(0x3fffffff))
    peer = chash.ring_find(self.ring, key)
    if tried == nil or not tried[peer] then
      break
    end
  end
  return peer, key
end

-- persistent -------------------------------------------------------------
local persistent = define("sticky_persistent")

function persistent.sync(self, backend)
  local peers, by_key, key_of = backend.endpoints, {}, {}
  for _, peer in ipairs(peers) do
    local key = ngx_md5(self.name .. peer.key) -- salted: the cookie does not reveal pod addresses
    by_key[key] = peer
    key_of[peer] = key
  end
  self.peers, self.by_key, self.key_of = peers, by_key, key_of
end

function persistent.find(self, key)
  return self.by_key[key]
end

function persistent.pick(self, tried)
  local candidates = untried(self.peers, tried)
  local peer = candidates[math_random(#candidates)]
  return peer, self.key_of[peer]
end

_M.balanced = balanced
_M.persistent = persistent

return _M
