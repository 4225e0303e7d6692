-- upstream-hash-by with upstream-hash-by-subset: a key always reaches the same
-- subset of hashBySubsetSize endpoints and a random one inside it, so one
-- hot key is spread over a few endpoints instead of one (ingress-nginx's chashsubset).
-- Subsets are consecutive runs of the endpoints sorted by "host:port", the
-- last one padded from the start, so every worker builds the same subsets.
local chash = require("portico.balancer.chash")
local expression = require("portico.balancer.expression")

local setmetatable = setmetatable
local math_random = math.random
local math_ceil = math.ceil
local table_sort = table.sort
local ipairs = ipairs

local _M = { name = "chashsubset" }
local mt = { __index = _M }

function _M.settings(backend)
  return backend.hashBy .. "\0" .. backend.hashBySubsetSize
end

function _M.new(backend)
  local self = setmetatable({ algorithm = _M.name, settings = _M.settings(backend),
    key = expression.parse(backend.hashBy), size = backend.hashBySubsetSize }, mt)
  self:sync(backend)
  return self
end

local function by_key(a, b)
  return a.key < b.key
end

function _M.sync(self, backend)
  local peers = {}
  for i, peer in ipairs(backend.endpoints) do
    peers[i] = peer
  end
  table_sort(peers, by_key)
  local size = self.size
  local count = #peers
  local subsets = {}
  for set = 1, math_ceil(count / size) do
    local members = {}
    for i = 1, size do
      -- with fewer endpoints than a subset, an endpoint appears twice in it: harmless
      members[i] = peers[((set - 1) * size + i - 1) % count + 1]
    end
    subsets[set] = { key = "set" .. set, members = members }
  end
  self.peers = peers
  self.ring = chash.ring_new(subsets)
end

local function random_untried(list, tried)
  local untried = {}
  for _, peer in ipairs(list) do
    if not tried[peer] then
      untried[#untried + 1] = peer
    end
  end
  if #untried > 0 then
    return untried[math_random(#untried)]
  end
end

-- A retry prefers an untried member of the key's subset, then any untried endpoint.
function _M.balance(self, tried)
  local members = chash.ring_find(self.ring, expression.evaluate(self.key)).members
  if tried == nil then
    return members[math_random(#members)]
  end
  return random_untried(members, tried) or random_untried(self.peers, tried) or members[math_random(#members)]
end

return _M
