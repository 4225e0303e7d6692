-- The documents the controller pushes (backends, certificates), kept in the
-- shared dict `portico_configuration` so that every worker sees them.
--
-- Layout, for a document NAME:
--   NAME_version  number, 0 or absent before the first push; moves on each push
--   NAME#1, NAME#0 the raw JSON, in the slot of the version's parity
--
-- Why two slots: shdict set/safe_set of a value of another size frees the old
-- entry before allocating the new one (lua-nginx-module shdict_store), so a
-- "no memory" failure while overwriting the live value would lose it. A push
-- writes the idle slot, then moves the version, then frees the old slot; a
-- failed write leaves the live document untouched. A dict must therefore hold
-- two copies of its largest document during a push.
--
-- safe_* everywhere: the plain calls evict least-recently-used entries when
-- the dict is full, which could silently drop the other document.
local ngx = ngx
local ngx_sleep = ngx.sleep
local ngx_now = ngx.now
local tostring = tostring
local type = type
local pairs = pairs

local _M = {}

_M.DICT_NAME = "portico_configuration"

-- For the documents' decode(): nil when `map` is an object of strings to
-- strings, else what is wrong with it (`what` names it in the message).
function _M.string_map_error(map, what)
  if type(map) ~= "table" then
    return '"' .. what .. '" must be an object'
  end
  for key, value in pairs(map) do
    if type(key) ~= "string" or type(value) ~= "string" then
      return '"' .. what .. '" must map names to strings'
    end
  end
end

-- Bound at load (init_by_lua): nil if nginx.conf lacks the lua_shared_dict,
-- which balancer.init() reports.
local dict = ngx.shared[_M.DICT_NAME]
_M.dict = dict

local LOCK_SECONDS = 10 -- a worker that dies mid-push cannot block pushes for longer
local LOCK_WAIT_SECONDS = 5

local function slot_key(name, version)
  return name .. "#" .. tostring(version % 2)
end

function _M.version_key(name)
  return name .. "_version"
end

-- The live version of a document (nil or 0: never pushed). One shdict get.
function _M.version(name)
  return dict:get(name .. "_version")
end

-- Returns body, version; or nil, version when nothing was pushed (version nil
-- or 0). The version is read before the body, so a body is never labelled
-- newer than it is: a reader that raced a push only decodes once more.
function _M.read(name)
  local version_key = name .. "_version"
  for _ = 1, 3 do
    local version = dict:get(version_key)
    if not version or version == 0 then
      return nil, version
    end
    local body = dict:get(slot_key(name, version))
    if body then
      return body, version
    end
    -- a concurrent push freed that slot after moving the version: read again
  end
  return nil, nil
end

-- For a worker's decoded copy of a document, kept as of version `synced`:
-- false when the document has not moved since (one shdict get: `version_key`
-- is version_key(name), built once by the caller), or when a push is being
-- raced (the next call reads it); else true, the body (nil: nothing pushed)
-- and the version to keep it as.
function _M.moved(name, version_key, synced)
  local version = dict:get(version_key)
  if version == synced then
    return false
  end
  local body, body_version = _M.read(name)
  if body == nil and body_version == nil and version ~= nil and version > 0 then
    return false
  end
  return true, body, body_version or version
end

-- One push at a time: two concurrent pushes would write the same idle slot
-- and move the version twice, back onto the old document.
local function lock(lock_key)
  local deadline = ngx_now() + LOCK_WAIT_SECONDS
  while true do
    local ok, err = dict:safe_add(lock_key, true, LOCK_SECONDS)
    if ok then
      return true
    end
    if err ~= "exists" then
      return nil, err
    end
    if ngx_now() >= deadline then
      return nil, "another push is still in progress"
    end
    ngx_sleep(0.01)
  end
end

local function write_locked(name, body)
  local version_key = name .. "_version"
  -- Allocate the counter before anything else, so the final incr happens in place and cannot fail.
  local ok, err = dict:safe_add(version_key, 0)
  if not ok and err ~= "exists" then
    return nil, err
  end
  local version = dict:get(version_key) or 0
  ok, err = dict:safe_set(slot_key(name, version + 1), body)
  if not ok then
    dict:delete(slot_key(name, version + 1)) -- whatever the failed write left of the idle slot
    return nil, err
  end
  local new_version
  new_version, err = dict:incr(version_key, 1, 0)
  if not new_version then
    return nil, err
  end
  if version > 0 then
    dict:delete(slot_key(name, version))
  end
  return new_version
end

-- Stores a new body for the document; returns the new version, or nil and an
-- error ("no memory" when the dict is too small), the live document unchanged.
-- Yields (ngx.sleep) while another push holds the lock: content phase only.
function _M.write(name, body)
  local lock_key = name .. "_lock"
  local locked, err = lock(lock_key)
  if not locked then
    return nil, err
  end
  local version
  version, err = write_locked(name, body)
  dict:delete(lock_key)
  return version, err
end

return _M
