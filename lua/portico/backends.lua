-- The backends document: `{ "backends": [ { "name", "endpoints": [ { "address", "port" } ],
-- "loadBalance", "hashBy", "hashBySubset", "hashBySubsetSize", "affinity", "canary" } ] }`
-- (lua/README.md). decode() is both the configuration endpoint's validation
-- (a push that fails it is refused with 400) and the workers' parser, so a
-- worker never meets a document it cannot use. Optional fields come out
-- either absent or of the documented type, defaults filled in.
local cjson = require("cjson.safe")

local type = type
local pairs = pairs
local next = next
local ipairs = ipairs
local tostring = tostring
local string_find = string.find
local string_lower = string.lower

local null = cjson.null

local _M = {}

_M.DEFAULT_COOKIE_NAME = "INGRESSCOOKIE" -- ingress-nginx's annotation default
_M.DEFAULT_SUBSET_SIZE = 3
_M.DEFAULT_WEIGHT_TOTAL = 100

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

local function is_integer(value, min, max)
  return type(value) == "number" and value % 1 == 0 and value >= min and value <= max
end

-- RFC 7230 token: what a cookie or header name may be. Anything else could
-- split the Set-Cookie header or name a variable that is not a header.
local function is_token(value)
  return type(value) == "string" and string_find(value, "^[!#$%%&'*+.^_`|~0-9A-Za-z-]+$") ~= nil
end

-- A cookie attribute value: no `;` (would start another attribute), no control characters.
local function is_attribute(value)
  return type(value) == "string" and value ~= "" and string_find(value, "[%c;]") == nil
end

-- Each check takes (table, field, where) and returns an error message or nil;
-- it normalizes the field in place (null -> nil, defaults).
local function optional(check)
  return function(object, field, where)
    local value = object[field]
    if absent(value) then
      object[field] = nil
      return
    end
    return check(object, field, where .. "." .. field, value)
  end
end

local string_field = optional(function(_, _, where, value)
  if type(value) ~= "string" then
    return where .. " must be a string"
  end
end)

local boolean_field = optional(function(_, _, where, value)
  if type(value) ~= "boolean" then
    return where .. " must be a boolean"
  end
end)

local seconds_field = optional(function(_, _, where, value)
  if not is_integer(value, 0, 2 ^ 31) then
    return where .. " must be a whole number of seconds (0 or more)"
  end
end)

local token_field = optional(function(_, _, where, value)
  if not is_token(value) then
    return where .. " must be a token (letters, digits, !#$%&'*+.^_`|~-)"
  end
end)

local attribute_field = optional(function(_, _, where, value)
  if not is_attribute(value) then
    return where .. " must be a non-empty string without ';' or control characters"
  end
end)

local SAME_SITE = { none = "None", lax = "Lax", strict = "Strict" }

local function first_error(object, where, checks)
  for _, check in ipairs(checks) do
    local err = check[2](object, check[1], where)
    if err then
      return err
    end
  end
end

local function cookie_error(cookie, where)
  local err = first_error(cookie, where, {
    { "name", token_field }, { "path", attribute_field }, { "domain", attribute_field },
    { "maxAge", seconds_field }, { "expires", seconds_field }, { "secure", boolean_field },
    { "sameSite", string_field }, { "conditionalSameSiteNone", boolean_field },
    { "changeOnFailure", boolean_field }, { "partitioned", boolean_field },
  })
  if err then
    return err
  end
  cookie.name = cookie.name or _M.DEFAULT_COOKIE_NAME
  if cookie.sameSite ~= nil then
    local canonical = SAME_SITE[string_lower(cookie.sameSite)]
    if canonical == nil then
      return where .. '.sameSite must be "None", "Lax", "Strict" or null'
    end
    cookie.sameSite = canonical
  end
end

-- affinity.locations: host -> array of location paths that set the cookie;
-- absent means every location does.
local function locations_error(affinity, where)
  local locations = affinity.locations
  if absent(locations) then
    affinity.locations = nil
    return
  end
  if type(locations) ~= "table" or (next(locations) ~= nil and is_array(locations)) then
    return where .. " must be an object of host -> array of paths, or null"
  end
  for host, paths in pairs(locations) do
    if type(host) ~= "string" or not is_array(paths) then
      return where .. " must map each host to an array of paths"
    end
    for _, path in ipairs(paths) do
      if type(path) ~= "string" then
        return where .. "[" .. host .. "] must hold strings"
      end
    end
  end
end

local function affinity_error(affinity, where)
  if type(affinity) ~= "table" then
    return where .. " must be an object or null"
  end
  if absent(affinity.mode) then
    affinity.mode = "balanced"
  elseif affinity.mode ~= "balanced" and affinity.mode ~= "persistent" then
    return where .. '.mode must be "balanced", "persistent" or null'
  end
  local err = locations_error(affinity, where .. ".locations")
  if err then
    return err
  end
  if absent(affinity.cookie) then
    affinity.cookie = {}
  elseif type(affinity.cookie) ~= "table" then
    return where .. ".cookie must be an object or null"
  end
  return cookie_error(affinity.cookie, where .. ".cookie")
end

local function canary_error(canary, where, own_name)
  if type(canary) ~= "table" then
    return where .. " must be an object or null"
  end
  if type(canary.backend) ~= "string" or canary.backend == "" then
    return where .. ".backend must be a backend name"
  end
  if canary.backend == own_name then
    return where .. ".backend must name another backend"
  end
  local err = first_error(canary, where, {
    { "header", token_field }, { "headerValue", string_field }, { "headerPattern", string_field },
    { "cookie", token_field },
  })
  if err then
    return err
  end
  if absent(canary.weightTotal) then
    canary.weightTotal = _M.DEFAULT_WEIGHT_TOTAL
  elseif not is_integer(canary.weightTotal, 1, 2 ^ 31) then
    return where .. ".weightTotal must be a positive integer"
  end
  if absent(canary.weight) then
    canary.weight = 0
  elseif not is_integer(canary.weight, 0, 2 ^ 31) then
    return where .. ".weight must be an integer, 0 or more"
  end
  -- "" means unset, as ingress-nginx's empty annotation values
  if canary.header == "" then canary.header = nil end
  if canary.headerValue == "" then canary.headerValue = nil end
  if canary.headerPattern == "" then canary.headerPattern = nil end
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
  if not is_integer(port, 1, 65535) then
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

  local err = first_error(backend, where, {
    { "upstreamName", string_field }, { "loadBalance", string_field }, { "hashBy", string_field },
    { "hashBySubset", boolean_field },
  })
  if err then
    return err
  end
  if backend.hashBy == "" then
    backend.hashBy = nil
  end
  if absent(backend.hashBySubsetSize) then
    backend.hashBySubsetSize = _M.DEFAULT_SUBSET_SIZE
  elseif not is_integer(backend.hashBySubsetSize, 1, 1000) then
    return where .. ".hashBySubsetSize must be an integer from 1 to 1000"
  end

  if absent(backend.affinity) then
    backend.affinity = nil
  else
    err = affinity_error(backend.affinity, where .. ".affinity")
    if err then
      return err
    end
  end
  if absent(backend.canary) then
    backend.canary = nil
  else
    return canary_error(backend.canary, where .. ".canary", name)
  end
end

-- Returns the backends array (endpoints always an array, JSON nulls removed,
-- defaults filled in), or nil and a message naming the first offending field
-- (0-based indexes, as the sender's JSON tools count).
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
