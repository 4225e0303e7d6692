-- Round robin over a backend's endpoints, all weights equal. One object per
-- backend per worker; each worker counts on its own, so the spread is even
-- per worker and, summed, within one request per worker and endpoint.
local math_random = math.random
local setmetatable = setmetatable

local _M = { name = "round_robin" }
local mt = { __index = _M }

function _M.settings()
  return ""
end

-- backend.endpoints: a non-empty array of peers (the balancer filters and
-- prepares them); the object keeps the array and returns its elements.
function _M.new(backend)
  local self = setmetatable({ algorithm = _M.name, settings = "" }, mt)
  self:sync(backend)
  return self
end

function _M.sync(self, backend)
  self.peers = backend.endpoints
  -- Start at a random endpoint: otherwise every worker, after every reload
  -- or endpoint change, sends its first request to endpoint 1.
  self.last = math_random(#self.peers)
end

local function next_peer(self)
  local peers = self.peers
  local index = self.last % #peers + 1
  self.last = index
  return peers[index]
end

-- tried: nil on a request's first attempt; on a retry, the peers it already
-- tried: the next endpoint in the rotation that is not among them, if any.
function _M.balance(self, tried)
  local peer = next_peer(self)
  if tried ~= nil then
    for _ = 2, #self.peers do
      if not tried[peer] then
        break
      end
      peer = next_peer(self)
    end
  end
  return peer
end

return _M
