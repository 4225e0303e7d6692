-- Routes proxied requests to the endpoints the controller pushed, without
-- reloading nginx. Hooks (see lua/README.md):
--   init_by_lua:      require("portico.balancer").init({ status_port = N })
--   rewrite_by_lua:   require("portico.balancer").rewrite()   (after `set $proxy_upstream_name`)
--   balancer_by_lua:  require("portico.balancer").balance()   (upstream upstream_balancer)
--
-- Per request the only shared state touched is one shdict get of a number
-- (backends_version); the JSON is decoded once per worker per push.
local ngx_balancer = require("ngx.balancer")
local state = require("portico.state")
local backends = require("portico.backends")

local ngx = ngx
local ngx_var = ngx.var
local ngx_log = ngx.log
local ngx_exit = ngx.exit
local ERR = ngx.ERR
local WARN = ngx.WARN
local type = type
local ipairs = ipairs
local tostring = tostring
local error = error
local string_find = string.find
local string_lower = string.lower
local string_gsub = string.gsub
local math_randomseed = math.randomseed

local _M = {}

local DOCUMENT = "backends"
local VERSION_KEY = state.version_key(DOCUMENT)
local DEFAULT_ALGORITHM = "round_robin"

-- One balancer implementation per load-balance algorithm; each has
-- new(backend), sync(backend), balance() -> peer. Affinity, hash-by and
-- canary will choose among more of them in implementation_for().
local IMPLEMENTATIONS = {
  round_robin = require("portico.balancer.round_robin"),
}

local dict = state.dict
local status_port = 10246 -- ingress-nginx's default; init() sets the real one

-- Worker-local: rebuilt from the shared dict when backends_version moves.
local synced_version = nil
local balancers = {}      -- backend name -> balancer object
local synced_endpoints = {} -- backend name -> the peers its balancer was last given
local seeded = false

function _M.init(options)
  if dict == nil then
    error("portico: nginx.conf needs `lua_shared_dict " .. state.DICT_NAME .. " <size>;`")
  end
  local port = type(options) == "table" and options.status_port or nil
  if type(port) ~= "number" or port % 1 ~= 0 or port < 1 or port > 65535 then
    error("portico.balancer.init: status_port must be a port number, got " .. tostring(port))
  end
  status_port = port
end

-- Forwarding to the status server would let a client reach /configuration.
local function is_status_server(address, port)
  if port ~= status_port then
    return false
  end
  address = string_lower(address)
  return string_find(address, "^127%.") ~= nil
    or string_find(address, "^::ffff:127%.") ~= nil
    or address == "localhost" or address == "::1" or address == "0:0:0:0:0:0:0:1"
end

-- Peers: the endpoints nginx may connect to, with the host in the form
-- set_current_peer parses (IPv6 in brackets).
local function usable_peers(backend)
  local peers = {}
  for _, endpoint in ipairs(backend.endpoints) do
    local address, port = endpoint.address, endpoint.port
    local bare = string_gsub(address, "^%[(.*)%]$", "%1")
    if is_status_server(bare, port) then
      ngx_log(ERR, "backend ", backend.name, ": refusing endpoint ", address, ":", port,
        ", the status server (configuration endpoint) must never be proxied to")
    else
      peers[#peers + 1] = {
        address = bare,
        port = port,
        host = string_find(bare, ":", 1, true) and "[" .. bare .. "]" or bare,
      }
    end
  end
  return peers
end

local function same_peers(a, b)
  if a == nil or #a ~= #b then
    return false
  end
  for i, peer in ipairs(a) do
    if peer.address ~= b[i].address or peer.port ~= b[i].port then
      return false
    end
  end
  return true
end

local function implementation_for(backend)
  local algorithm = backend.loadBalance or DEFAULT_ALGORITHM
  local implementation = IMPLEMENTATIONS[algorithm]
  if implementation == nil then
    ngx_log(WARN, "backend ", backend.name, ": load balancing \"", algorithm,
      "\" is not implemented, using ", DEFAULT_ALGORITHM)
    implementation = IMPLEMENTATIONS[DEFAULT_ALGORITHM]
  end
  return implementation
end

local function rebuild(list)
  local new_balancers, new_endpoints = {}, {}
  for _, backend in ipairs(list) do
    local name = backend.name
    local peers = usable_peers(backend)
    -- No peers, no balancer: rewrite() answers 503 for it.
    if #peers > 0 then
      local implementation = implementation_for(backend)
      local balancer = balancers[name]
      local prepared = { name = name, endpoints = peers, loadBalance = backend.loadBalance }
      local given = synced_endpoints[name]
      if balancer == nil or balancer.algorithm ~= implementation.name then
        balancer = implementation.new(prepared)
        given = peers
      elseif not same_peers(given, peers) then
        balancer:sync(prepared)
        given = peers
      end
      -- same endpoints: the balancer keeps its state (position, later scores)
      new_balancers[name] = balancer
      new_endpoints[name] = given
    end
  end
  balancers, synced_endpoints = new_balancers, new_endpoints
end

local function sync_backends()
  local version = dict:get(VERSION_KEY)
  if version == synced_version then
    return
  end
  if not seeded then
    -- Workers fork from the master with one random state; seed each apart
    -- so their round robins start at different endpoints.
    math_randomseed(ngx.worker.pid() * 1000003 + ngx.now() * 1000)
    seeded = true
  end
  local body, body_version = state.read(DOCUMENT)
  if body == nil then
    if body_version == nil and version ~= nil and version > 0 then
      return -- raced a push; the next request reads it
    end
    balancers, synced_endpoints = {}, {}
    synced_version = version
    return
  end
  local list, err = backends.decode(body)
  if list == nil then
    -- Cannot happen for a body the endpoint accepted; do not retry per request.
    ngx_log(ERR, "backends version ", body_version, " is unusable, keeping the previous ones: ", err)
  else
    rebuild(list)
  end
  synced_version = body_version
end

function _M.rewrite()
  sync_backends()
  local balancer = balancers[ngx_var.proxy_upstream_name]
  if balancer == nil then
    return ngx_exit(503) -- unknown backend, or none of its endpoints is usable
  end
  local ctx = ngx.ctx
  ctx.portico_balancer = balancer
  ctx.portico_peer = balancer:balance()
end

-- With proxy_next_upstream_tries 0 (unlimited), granting a try per attempt
-- would retry a backend whose endpoints all refuse until
-- proxy_next_upstream_timeout, by default forever: stop granting here.
local MAX_ATTEMPTS = 16

-- A retry goes to a peer this request has not tried, if any: k+1 picks in a
-- row of a round robin cannot all be among k tried peers.
local function retry_peer(ctx, balancer, attempts)
  local tried = ctx.portico_tried
  if tried == nil then
    tried = { [ctx.portico_peer] = true }
    ctx.portico_tried = tried
  end
  local peer
  for _ = 1, attempts do
    peer = balancer:balance()
    if not tried[peer] then
      break
    end
  end
  tried[peer] = true
  return peer
end

function _M.balance()
  local ctx = ngx.ctx
  local balancer = ctx.portico_balancer
  if balancer == nil then
    ngx_log(ERR, "upstream_balancer used without portico.balancer.rewrite() in the location (upstream \"",
      tostring(ngx_var.proxy_upstream_name), "\")")
    return ngx_exit(ngx.ERROR)
  end
  local attempts = (ctx.portico_attempts or 0) + 1
  ctx.portico_attempts = attempts
  local peer = ctx.portico_peer
  if ngx_balancer.get_last_failure() ~= nil then -- a proxy_next_upstream retry
    peer = retry_peer(ctx, balancer, attempts)
    ctx.portico_peer = peer
  end
  -- One more try per attempt, as ingress-nginx: the location's
  -- proxy_next_upstream_tries (ingress-nginx default 3) bounds the retries.
  if attempts < MAX_ATTEMPTS then
    local ok, err = ngx_balancer.set_more_tries(1)
    if not ok then
      ngx_log(ERR, "set_more_tries: ", err)
    end
  end
  local ok, err = ngx_balancer.set_current_peer(peer.host, peer.port)
  if not ok then
    ngx_log(ERR, "backend upstream \"", tostring(ngx_var.proxy_upstream_name), "\": cannot use peer ",
      peer.host, ":", peer.port, ": ", err)
    return ngx_exit(ngx.ERROR)
  end
end

return _M
