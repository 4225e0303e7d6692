-- Consistent hashing (upstream-hash-by): the same key always reaches the same
-- endpoint, and adding or removing one endpoint of n moves only ~1/n of the
-- keys. Pure Lua (Debian has no lua-resty-balancer): a ring of 160 points per
-- node, searched by binary search with crc32(key).
--
-- The points come from md5("<host:port>#<i>"), four 32-bit points per digest
-- (as ketama). Not crc32: CRC is linear, so the points of "…:40001#i" and
-- "…:40002#i" are the same set XORed with one constant; the rings it built
-- for loopback ports moved up to half the keys when a sixth endpoint came.
-- A request hashes its key once; crc32 is fine there.
--
-- Each ring point is one number, hash * 2^21 + node index, so building the
-- ring is a plain numeric table.sort (no comparator, no table per point) and
-- equal hashes still order the same way in every worker: nodes are indexed
-- in the order of their sorted keys, never in push order.
-- Cost: building for n endpoints sorts 160n numbers, ~4 ms at 50 endpoints,
-- ~130 ms at 1000, once per worker per endpoint change.
local expression = require("portico.balancer.expression")

local ngx_crc32 = ngx.crc32_long
local ngx_md5_bin = ngx.md5_bin
local string_byte = string.byte
local setmetatable = setmetatable
local ipairs = ipairs
local table_sort = table.sort
local math_floor = math.floor
local error = error

local DIGESTS_PER_NODE = 40 -- × 4 points each = 160 points per node
local INDEX_SPAN = 2 ^ 21 -- hashes are < 2^32: points stay below 2^53, exact in a double

local _M = { name = "chash" }
local mt = { __index = _M }

local function by_key(a, b)
  return a.key < b.key
end

-- nodes: a non-empty array of tables with a string `key` (unique). Returns a
-- ring; ring_find(ring, key) returns a node and its point's position.
local function ring_new(nodes)
  if #nodes >= INDEX_SPAN then
    error("too many nodes for a hash ring: " .. #nodes)
  end
  local sorted = {}
  for i, node in ipairs(nodes) do
    sorted[i] = node
  end
  table_sort(sorted, by_key)
  local points = {}
  local n = 0
  for index, node in ipairs(sorted) do
    local prefix = node.key .. "#"
    for i = 1, DIGESTS_PER_NODE do
      local digest = ngx_md5_bin(prefix .. i)
      for offset = 1, 13, 4 do
        local b1, b2, b3, b4 = string_byte(digest, offset, offset + 3)
        n = n + 1
        points[n] = (((b1 * 256 + b2) * 256 + b3) * 256 + b4) * INDEX_SPAN + index
      end
    end
  end
  table_sort(points)
  return { points = points, nodes = sorted }
end

-- The first point at or after the key's hash, wrapping past the top.
local function ring_find(ring, key)
  local points = ring.points
  local target = ngx_crc32(key) * INDEX_SPAN
  local low, high = 1, #points
  if points[high] < target then
    low = 1
  else
    while low < high do
      local middle = math_floor((low + high) / 2)
      if points[middle] < target then
        low = middle + 1
      else
        high = middle
      end
    end
  end
  return ring.nodes[points[low] % INDEX_SPAN], low
end

-- The node of the first point from `position` on (wrapping) that `skip`
-- rejects no more; nil when every node is skipped.
local function ring_walk(ring, position, skip)
  local points, nodes = ring.points, ring.nodes
  local count = #points
  for step = 0, count - 1 do
    local node = nodes[points[(position - 1 + step) % count + 1] % INDEX_SPAN]
    if not skip[node] then
      return node
    end
  end
end

_M.ring_new = ring_new
_M.ring_find = ring_find
_M.ring_walk = ring_walk

function _M.settings(backend)
  return backend.hashBy
end

function _M.new(backend)
  local self = setmetatable({ algorithm = _M.name, settings = _M.settings(backend),
    key = expression.parse(backend.hashBy) }, mt)
  self:sync(backend)
  return self
end

-- Peers carry their "host:port" as `key`, so they are the ring's nodes.
function _M.sync(self, backend)
  self.ring = ring_new(backend.endpoints)
end

-- tried: nil on a request's first attempt; on a retry, the peers it already
-- tried: the next endpoint clockwise on the ring that it has not, so a key
-- whose endpoint is down still lands on the same second choice every time.
function _M.balance(self, tried)
  local peer, position = ring_find(self.ring, expression.evaluate(self.key))
  if tried ~= nil and tried[peer] then
    peer = ring_walk(self.ring, position, tried) or peer
  end
  return peer
end

return _M
