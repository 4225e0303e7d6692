-- Routes proxied requests to the endpoints the controller pushed, without
-- reloading nginx. Hooks (see lua/README.md):
--   init_by_lua:      portico_balancer = require("portico.balancer")
--                     portico_balancer.init({ status_port = N, portico_ports = { ... }, refuse_loopback = bool })
--   balancer_by_lua:  portico_balancer.balance()   (upstream upstream_balancer)
--   rewrite_by_lua:   portico_balancer.rewrite()   (TLS and gRPC upstreams only)
--   log_by_lua:       portico_balancer.log()       (ewma's latency feedback)
--
-- Everything is decided in the balancer phase, and a first attempt keeps no
-- per-request state: a rewrite_by_lua hook (a coroutine) and ngx.ctx each cost
-- every request about as much as the balancing itself. The one
-- answer the balancer phase cannot give is a 503 (ngx_lua turns any exit
-- there into a 500), so a backend without endpoints is proxied to the
-- configuration's no-endpoints server, which answers 503. That server speaks
-- plain HTTP/1.1; a location proxying with TLS or gRPC calls rewrite(), which
-- answers the 503 itself and keeps, for the balancer, the endpoints it saw.
--
-- Per request the only shared state touched is one shdict get of a number
-- (backends_version) and one of the keep-alive drain's flag, plus ewma's
-- scores for ewma backends; the JSON is decoded once per worker per push.
local ngx_balancer = require("ngx.balancer")
local get_last_failure = ngx_balancer.get_last_failure
local set_more_tries = ngx_balancer.set_more_tries
local set_current_peer = ngx_balancer.set_current_peer
local state = require("portico.state")
local backends = require("portico.backends")
local round_robin = require("portico.balancer.round_robin")
local ewma = require("portico.balancer.ewma")
local chash = require("portico.balancer.chash")
local chashsubset = require("portico.balancer.chashsubset")
local sticky = require("portico.balancer.sticky")
local canary = require("portico.balancer.canary")
local self_address = require("portico.balancer.self_address")
local close_if_draining = require("portico.keepalive_drain").close_if_draining

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
local string_gmatch = string.gmatch
local math_randomseed = math.randomseed
local pcall = pcall

local _M = {}

local DOCUMENT = "backends"
local VERSION_KEY = state.version_key(DOCUMENT)
local DEFAULT_ALGORITHM = "round_robin"

-- The values of `loadBalance`. Each implementation has a name, settings(backend)
-- (a string: a change recreates the object), new(backend), sync(backend)
-- (new endpoints, same settings), balance(tried) -> peer, and optionally
-- is_affinitized() (sticky: canary routing). ewma's log phase is ewma.after_balance().
local LOAD_BALANCE = {
  round_robin = round_robin,
  ewma = ewma,
}

local dict = state.dict
-- What self_address.refusal() refuses: every port Portico listens on (the
-- status port's default until init()), and in Kubernetes mode loopback at any port.
local self_policy = { ports = { [10246] = true }, refuse_loopback = false }

-- Worker-local: rebuilt from the shared dict when backends_version moves.
local synced_version = nil
local balancers = {}      -- backend name -> balancer object
local synced_endpoints = {} -- backend name -> the peers its balancer was last given
local canaries = {}       -- primary backend name -> its prepared canary policy
local seeded = false

local function valid_port(port)
  return type(port) == "number" and port % 1 == 0 and port >= 1 and port <= 65535
end

function _M.init(options)
  if dict == nil then
    error("portico: nginx.conf needs `lua_shared_dict " .. state.DICT_NAME .. " <size>;`")
  end
  local port = type(options) == "table" and options.status_port or nil
  if not valid_port(port) then
    error("portico.balancer.init: status_port must be a port number, got " .. tostring(port))
  end
  local ports = { [port] = true }
  for _, other in ipairs(options.portico_ports or {}) do
    if not valid_port(other) then
      error("portico.balancer.init: portico_ports must hold port numbers, got " .. tostring(other))
    end
    ports[other] = true
  end
  self_policy = { ports = ports, refuse_loopback = options.refuse_loopback == true }
end

-- Peers: the endpoints nginx may connect to, with the host in the form
-- set_current_peer parses (IPv6 in brackets).
local function usable_peers(backend)
  local peers = {}
  for _, endpoint in ipairs(backend.endpoints) do
    local address, port = endpoint.address, endpoint.port
    local bare = string_lower((string_gsub(address, "^%[(.*)%]$", "%1")))
    local why = self_address.refusal(bare, port, self_policy)
    if why ~= nil then
      ngx_log(ERR, "backend ", backend.name, ": refusing endpoint ", address, ":", port, ": it ", why)
    else
      local host = string_find(bare, ":", 1, true) and "[" .. bare .. "]" or bare
      peers[#peers + 1] = {
        address = bare,
        port = port,
        host = host,
        key = host .. ":" .. port, -- identity for hashing, scores and sticky keys
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

-- ingress-nginx's get_implementation(): cookie affinity wins, then
-- upstream-hash-by, then load-balance.
local function implementation_for(backend)
  if backend.affinity ~= nil then
    return backend.affinity.mode == "persistent" and sticky.persistent or sticky.balanced
  end
  if backend.hashBy ~= nil then
    return backend.hashBySubset and chashsubset or chash
  end
  local algorithm = backend.loadBalance or DEFAULT_ALGORITHM
  local implementation = LOAD_BALANCE[algorithm]
  if implementation == nil then
    ngx_log(WARN, "backend ", backend.name, ": load balancing \"", algorithm,
      "\" is not implemented, using ", DEFAULT_ALGORITHM)
    implementation = round_robin
  elseif implementation == ewma and not ewma.available then
    ngx_log(ERR, "backend ", backend.name, ": ewma needs `lua_shared_dict ", ewma.DICT_NAME,
      " 10m;` in nginx.conf, using ", DEFAULT_ALGORITHM)
    implementation = round_robin
  end
  return implementation
end

local function rebuild(list)
  local new_balancers, new_endpoints, new_canaries = {}, {}, {}
  for _, backend in ipairs(list) do
    local name = backend.name
    local peers = usable_peers(backend)
    -- No peers, no balancer: rewrite() answers 503 for it.
    if #peers > 0 then
      local implementation = implementation_for(backend)
      local balancer = balancers[name]
      backend.endpoints = peers -- the document was decoded for this rebuild: ours to change
      local given = synced_endpoints[name]
      if balancer == nil or balancer.algorithm ~= implementation.name
          or balancer.settings ~= implementation.settings(backend) then
        balancer = implementation.new(backend)
        given = peers
      elseif not same_peers(given, peers) then
        balancer:sync(backend)
        given = peers
      end
      -- same endpoints: the balancer keeps its state (position, ring)
      new_balancers[name] = balancer
      new_endpoints[name] = given
      new_canaries[name] = canary.prepare(backend)
    end
  end
  balancers, synced_endpoints, canaries = new_balancers, new_endpoints, new_canaries
end

local function sync_backends()
  local moved, body, body_version = state.moved(DOCUMENT, VERSION_KEY, synced_version)
  if not moved then
    return
  end
  if not seeded then
    -- Workers fork from the master with one random state; seed each apart
    -- so their round robins start at different endpoints.
    math_randomseed(ngx.worker.pid() * 1000003 + ngx.now() * 1000)
    seeded = true
  end
  if body == nil then
    balancers, synced_endpoints, canaries = {}, {}, {}
    synced_version = body_version
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

local function set_alternative_upstream_name(name)
  ngx_var.proxy_alternative_upstream_name = name
end
local warned_alternative = false

-- The balancer for a first attempt: the location's backend's, or its
-- canary's; nil when the backend is unknown or has no usable endpoint.
local function first_attempt_balancer()
  sync_backends()
  local name = ngx_var.proxy_upstream_name
  local balancer = balancers[name]
  if balancer == nil then
    return nil
  end
  local policy = canaries[name]
  if policy ~= nil then
    local chosen = canary.choose(policy, balancer, balancers[policy.backend])
    if chosen ~= nil then
      balancer = chosen
      -- For logs, and for retries to stay on the canary. Writing a variable no
      -- `set` declares raises an error: routing must not depend on it.
      local ok, err = pcall(set_alternative_upstream_name, policy.backend)
      if not ok and not warned_alternative then
        warned_alternative = true
        ngx_log(WARN, "cannot set $proxy_alternative_upstream_name (nginx.conf needs `set ",
          "$proxy_alternative_upstream_name \"\";`): ", err)
      end
    end
  end
  return balancer
end

-- ngx.ctx key of the balancer rewrite() found (TLS and gRPC upstreams only).
local CHECKED_BALANCER = "portico_checked_balancer"

-- Only where the upstream is TLS or gRPC, which the no-endpoints server does
-- not speak: answer the 503 in the rewrite phase. The balancer chooses.
function _M.rewrite()
  sync_backends()
  local balancer = balancers[ngx_var.proxy_upstream_name]
  if balancer == nil then
    return ngx_exit(503) -- unknown backend, or none of its endpoints is usable
  end
  -- A push may take the backend away before the balancer phase; sent to the
  -- plain-HTTP no-endpoints server, the request would fail with a 502.
  ngx.ctx[CHECKED_BALANCER] = balancer
end

-- After a push took the backend away: the endpoints rewrite() saw, if it ran.
-- Read only then: a first read of ngx.ctx creates the request's table.
local function balancer_checked_in_rewrite()
  return ngx.ctx[CHECKED_BALANCER]
end

-- With proxy_next_upstream_tries 0 (unlimited), retrying a backend whose
-- endpoints all refuse would go on until proxy_next_upstream_timeout, by
-- default forever: at most this many attempts.
local MAX_ATTEMPTS = 16

-- "10.0.0.1:80, 10.0.0.2:80 : unix:/x" -> { ["10.0.0.1:80"] = true, ... }:
-- the peers nginx connected to for this request ($upstream_addr; " : "
-- separates internal redirects, whose peers count too).
local function tried_keys()
  local keys = {}
  local addresses = ngx_var.upstream_addr
  if addresses ~= nil then
    for address in string_gmatch(addresses, "[^%s,]+") do
      keys[address] = true
    end
  end
  return keys
end

-- A retry (proxy_next_upstream). The first attempt kept no state (ngx.ctx
-- costs every request about as much as the rest of the balancer): the
-- backend is the one $proxy_alternative_upstream_name names, else the
-- location's, and the peers tried are those in $upstream_addr. Each
-- algorithm then prefers a peer not tried yet (sticky without
-- changeOnFailure keeps the client's own). The second result is false when
-- the backend has no balancer (any more).
local function retry()
  local name = ngx_var.proxy_upstream_name
  local policy = canaries[name]
  if policy ~= nil and ngx_var.proxy_alternative_upstream_name == policy.backend then
    name = policy.backend
  end
  local balancer = balancers[name]
  if balancer == nil then
    return nil, false -- the no-endpoints server failed, or a push took the backend away
  end
  local keys = tried_keys()
  local tried = {}
  for _, peer in ipairs(synced_endpoints[name]) do
    if keys[peer.key] then
      tried[peer] = true
    end
  end
  return balancer:balance(tried), true
end

-- The no-endpoints server's address, from the variable nginx.conf maps it to
-- (read once per worker, on the first request that needs it).
local no_endpoints_peer = nil

local function set_no_endpoints_peer()
  if no_endpoints_peer == nil then
    no_endpoints_peer = ngx_var.portico_no_endpoints_peer
    if no_endpoints_peer == nil then
      ngx_log(ERR, "nginx.conf maps no $portico_no_endpoints_peer: a backend without endpoints answers 500")
      return ngx_exit(ngx.ERROR)
    end
  end
  local ok, err = set_current_peer(no_endpoints_peer)
  if not ok then
    ngx_log(ERR, "cannot use the no-endpoints server ", no_endpoints_peer, ": ", err)
    return ngx_exit(ngx.ERROR)
  end
end

function _M.balance()
  local peer
  if get_last_failure() == nil then
    close_if_draining() -- around a reload: the client closes its kept-alive connection (keepalive_drain.lua)
    local balancer = first_attempt_balancer() or balancer_checked_in_rewrite()
    if balancer == nil then
      return set_no_endpoints_peer() -- unknown backend, or none of its endpoints is usable: 503
    end
    peer = balancer:balance()
    -- The location's proxy_next_upstream_tries (ingress-nginx default 3) bounds the retries.
    local ok, err = set_more_tries(MAX_ATTEMPTS - 1)
    if not ok then
      ngx_log(ERR, "set_more_tries: ", err)
    end
  else
    local known
    peer, known = retry()
    if not known then
      -- The backend has no endpoints (now): its 503, not a 500.
      return set_no_endpoints_peer()
    end
    if peer == nil then
      return ngx_exit(ngx.ERROR)
    end
  end
  local ok, err = set_current_peer(peer.host, peer.port)
  if not ok then
    ngx_log(ERR, "backend upstream \"", tostring(ngx_var.proxy_upstream_name), "\": cannot use peer ",
      peer.host, ":", peer.port, ": ", err)
    return ngx_exit(ngx.ERROR)
  end
end

-- log_by_lua: ewma learns the latencies of the attempts it chose (ewma keeps
-- them in ngx.ctx; for any other algorithm this returns at once).
function _M.log()
  ewma.after_balance()
end

return _M
