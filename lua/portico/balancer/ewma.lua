-- Peak-EWMA load balancing with the power of two choices (ingress-nginx's
-- "ewma", after Finagle's PeakEwma): pick two random endpoints this request
-- has not tried and take the one with the lower score,
--   score = latency EWMA decayed to now × (requests in flight + 1).
-- Latencies and in-flight counts live in `lua_shared_dict portico_balancer_ewma`,
-- so all workers (and the next generation after a reload) see the same ones;
-- log() (log_by_lua) feeds each attempt's latency back.
--
-- There is no lock (lua-resty-lock is not on Debian, and the log phase cannot
-- wait for one): two workers updating one endpoint at the same moment can
-- lose one sample, which an average over many samples does not notice.
local untried = require("portico.balancer.untried")
local ngx = ngx
local ngx_now = ngx.now
local ngx_var = ngx.var
local ipairs = ipairs
local tonumber = tonumber
local setmetatable = setmetatable
local math_exp = math.exp
local math_random = math.random
local string_gmatch = string.gmatch

local _M = { name = "ewma" }
local mt = { __index = _M }

_M.DICT_NAME = "portico_balancer_ewma"
local dict = ngx.shared[_M.DICT_NAME]
_M.available = dict ~= nil

local DECAY_SECONDS = 10
-- A score untouched this long has decayed to e^-30 of itself: let the dict forget it.
local TTL_SECONDS = 300
-- nginx measures in milliseconds, so a fast backend often measures 0: adding
-- one keeps (active + 1) meaningful between two such endpoints.
local RESOLUTION_SECONDS = 0.001
-- An attempt that got no response header (refused, reset, timed out) must not
-- look fast: a refusing endpoint answers in 0 ms and would attract traffic.
local FAILURE_SECONDS = 1
-- In-flight counters are recreated this often: a worker that crashed (or a
-- location without the log hook) would otherwise leave its requests counted
-- forever. A request that straddles a reset is undercounted until it ends.
local ACTIVE_TTL_SECONDS = 60

function _M.settings()
  return ""
end

local function decayed(ewma, touched, now)
  if ewma == nil then
    return 0
  end
  local age = now - (touched or now)
  if age <= 0 then
    return ewma
  end
  return ewma * math_exp(-age / DECAY_SECONDS)
end

local function score(peer, now)
  local ewma = decayed(dict:get(peer.ewma_key), dict:get(peer.touched_key), now)
  local active = dict:get(peer.active_key) or 0
  if active < 0 then
    active = 0 -- for a moment after a reset (see after_balance)
  end
  return (ewma + RESOLUTION_SECONDS) * (active + 1)
end

-- Slow start: an endpoint without a score starts at the backend's current
-- average, not at 0 (which would win every comparison it is drawn into until
-- its first responses are logged: a burst onto a pod that may still be warming up).
-- add(): the first worker to sync wins, the others keep its value.
local function seed_new_endpoints(peers)
  local now = ngx_now()
  local sum, count = 0, 0
  for _, peer in ipairs(peers) do
    local ewma = dict:get(peer.ewma_key)
    if ewma ~= nil then
      sum = sum + decayed(ewma, dict:get(peer.touched_key), now)
      count = count + 1
    end
  end
  if count == 0 or count == #peers then
    return
  end
  local average = sum / count
  for _, peer in ipairs(peers) do
    if dict:add(peer.ewma_key, average, TTL_SECONDS) then
      dict:set(peer.touched_key, now, TTL_SECONDS)
    end
  end
end

function _M.new(backend)
  local self = setmetatable({ algorithm = _M.name, settings = "" }, mt)
  self:sync(backend)
  return self
end

function _M.sync(self, backend)
  local peers = backend.endpoints
  for _, peer in ipairs(peers) do
    -- keyed by endpoint, not backend: two backends on one pod share its latency
    peer.ewma_key = "e" .. peer.key
    peer.touched_key = "t" .. peer.key
    peer.active_key = "a" .. peer.key
  end
  self.peers = peers
  seed_new_endpoints(peers)
end

function _M.balance(self, tried)
  local candidates = untried(self.peers, tried)
  local count = #candidates
  local peer = candidates[1]
  if count > 1 then
    local i = math_random(count)
    local j = math_random(count - 1)
    if j >= i then
      j = j + 1 -- two different endpoints
    end
    local now = ngx_now()
    local first, second = candidates[i], candidates[j]
    peer = score(second, now) < score(first, now) and second or first
  end
  dict:incr(peer.active_key, 1, 0, ACTIVE_TTL_SECONDS)
  local ctx = ngx.ctx
  local attempts = ctx.portico_ewma_attempts
  if attempts == nil then
    ctx.portico_ewma_attempts = { peer }
  else
    attempts[#attempts + 1] = peer
  end
  return peer
end

-- "0.050, -, 0.001 : 0.002" -> { 0.05, false, 0.001, 0.002 } (one per attempt;
-- " : " separates the upstreams of internal redirects).
local function times(value)
  local list = {}
  if value ~= nil then
    for token in string_gmatch(value, "[^%s,:]+") do
      list[#list + 1] = tonumber(token) or false
    end
  end
  return list
end

local function observe(peer, rtt, now)
  local ewma = dict:get(peer.ewma_key)
  if ewma == nil or rtt > ewma then
    ewma = rtt -- peak sensitivity: a slower response counts at once
  else
    local age = now - (dict:get(peer.touched_key) or now)
    local weight = age > 0 and math_exp(-age / DECAY_SECONDS) or 1
    ewma = ewma * weight + rtt * (1 - weight)
  end
  dict:set(peer.ewma_key, ewma, TTL_SECONDS)
  dict:set(peer.touched_key, now, TTL_SECONDS)
end

-- log_by_lua: each attempt of this request leaves its in-flight count and
-- feeds its latency: $upstream_header_time, which nginx measures from the
-- start of the attempt, so it already includes the connect time.
function _M.after_balance()
  local ctx = ngx.ctx
  local attempts = ctx.portico_ewma_attempts
  if attempts == nil then
    return
  end
  ctx.portico_ewma_attempts = nil
  local header_times = times(ngx_var.upstream_header_time)
  -- The variables list every upstream attempt of the request, ours last. None:
  -- the request ended before proxying (the rewrite-phase pick was never used).
  local offset = #header_times - #attempts
  local response_times = offset >= 0 and times(ngx_var.upstream_response_time) or nil
  local now = ngx_now()
  for i, peer in ipairs(attempts) do
    -- "not found" (reset or evicted): nothing to undo; below zero: this request
    -- was counted before a reset, so give the decrement back
    local active = dict:incr(peer.active_key, -1)
    if active ~= nil and active < 0 then
      dict:incr(peer.active_key, -active)
    end
    if response_times ~= nil then
      local header_time = header_times[offset + i]
      if header_time then
        observe(peer, header_time, now)
      else
        local response_time = response_times[offset + i] or 0
        observe(peer, response_time > FAILURE_SECONDS and response_time or FAILURE_SECONDS, now)
      end
    end
  end
end

return _M
