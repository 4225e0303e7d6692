-- The backends document: `{ "backends": [ { "name", "endpoints": [ { "address", "port" } ], "loadBalance" } ] }`.
-- decode() is both the configuration endpoint's validation (a push that fails
-- it is refused with 400) and the workers' parser, so a worker never meets a
-- document it cannot use.
local cjson = require("cjson.safe")

local type = type
local pairs = pairs
local ipairs = ipairs
local tostring = tostring

local null = cjson.null

local _M = {}

-- cjson decodes both [] and {} to an empty table, so {} passes as an empty array.
local function is_array(value)
  if type(value) ~= "table" then
    return false
  end
  local length = #value
  for key in pairs(value) do
    if type(key) ~= "number" or key < 1 or key > length or key % 1 ~= 0 then
      return false
    end
  end
  return true
end

local function absent(value)
  return value == nil or value == null
end

local function endpoint_error(endpoint, where)
  if type(endpoint) ~= "table" then
    return where .. " must be an object"
  end
  local address = endpoint.address
  if type(address) ~= "string" or address == "" then
    return where .. ".address must be a non-empty string"
  end
  local port = endpoint.port
  if type(port) ~= "number" or port % 1 ~= 0 or port < 1 or port > 65535 then
    return where .. ".port must be an integer from 1 to 65535"
  end
end

local function backend_error(backend, where, names)
  if type(backend) ~= "table" then
    return where .. " must be an object"
  end
  local name = backend.name
  if type(name) ~= "string" or name == "" then
    return where .. ".name must be a non-empty string"
  end
  if names[name] then
    return where .. ".name " .. name .. " is not unique"
  end
  names[name] = true

  if absent(backend.endpoints) then
    backend.endpoints = {}
  elseif not is_array(backend.endpoints) then
    return where .. ".endpoints must be an array"
  end
  for i, endpoint in ipairs(backend.endpoints) do
    local err = endpoint_error(endpoint, where .. ".endpoints[" .. (i - 1) .. "]")
    if err then
      return err
    end
  end

  if absent(backend.loadBalance) then
    backend.loadBalance = nil
  elseif type(backend.loadBalance) ~= "string" then
    return where .. ".loadBalance must be a string"
  end
end

-- Returns the backends array (endpoints always an array, JSON nulls removed),
-- or nil and a message naming the first offending field (0-based indexes, as
-- the sender's JSON tools count).
function _M.decode(body)
  local document, err = cjson.decode(body)
  if document == nil then
    return nil, "not JSON: " .. tostring(err)
  end
  if type(document) ~= "table" or not is_array(document.backends) then
    return nil, 'expected an object with a "backends" array'
  end
  local names = {}
  for i, backend in ipairs(document.backends) do
    local problem = backend_error(backend, "backends[" .. (i - 1) .. "]", names)
    if problem then
      return nil, problem
    end
  end
  return document.backends
end

return _M
