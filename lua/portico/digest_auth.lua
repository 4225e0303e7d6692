-- HTTP Digest authentication (RFC 7616 / 2617), MD5 with qop=auth, against
-- htdigest entries (`user:realm` -> HA1 = md5(user:realm:password)), as
-- ingress-nginx's auth_digest module. Nonces are stateless: the issue time
-- and an HMAC of it and the location key under a secret drawn when the
-- master loads this module (a reload draws a new one: clients get
-- `stale=true` and retry without asking the user). A nonce expires after
-- NONCE_SECONDS. Nonce counts are not tracked: a captured request can be
-- replayed to the same URI while its nonce lives.
local ngx = ngx
local md5 = ngx.md5
local hmac_sha1 = ngx.hmac_sha1
local ngx_time = ngx.time
local io_open = io.open
local string_find = string.find
local string_sub = string.sub
local string_lower = string.lower
local string_format = string.format
local string_byte = string.byte
local string_gsub = string.gsub
local table_concat = table.concat
local tonumber = tonumber
local tostring = tostring

local password_hash = require("portico.password_hash")
local equal = password_hash.equal

local _M = {}

local NONCE_SECONDS = 60
-- An Authorization header longer than this is not parsed (bounded work per request).
local MAX_HEADER_LENGTH = 4096

local function random_secret()
  local file = io_open("/dev/urandom", "rb")
  if file == nil then
    error("cannot read /dev/urandom for the digest nonce secret")
  end
  local bytes = file:read(32)
  file:close()
  return bytes
end
local secret = random_secret()

local function hex(bytes)
  return (string_gsub(bytes, ".", function(c)
    return string_format("%02x", string_byte(c))
  end))
end

local function signature(issued, key)
  return hex(hmac_sha1(secret, issued .. ":" .. tostring(key)))
end

local function nonce(key)
  local issued = string_format("%08x", ngx_time())
  return issued .. signature(issued, key)
end

-- "valid", "stale" (authentic but expired) or nil (forged or malformed).
local function check_nonce(value, key)
  if #value ~= 48 then
    return nil
  end
  local issued = string_sub(value, 1, 8)
  if not equal(signature(issued, key), string_sub(value, 9)) then
    return nil
  end
  local age = ngx_time() - (tonumber(issued, 16) or 0)
  if age < 0 or age > NONCE_SECONDS then
    return "stale"
  end
  return "valid"
end

-- `name=token` and `name="quoted \" string"` pairs, comma-separated; nil when a quote is not closed.
local function parse_params(text)
  local params = {}
  local position = 1
  while true do
    local _, name_end, name = string_find(text, "^[%s,]*([%w_-]+)%s*=%s*", position)
    if name == nil then
      return params
    end
    position = name_end + 1
    local value
    if string_sub(text, position, position) == '"' then
      local parts = {}
      local i = position + 1
      while true do
        local c = string_sub(text, i, i)
        if c == "" then
          return nil
        elseif c == "\\" then
          parts[#parts + 1] = string_sub(text, i + 1, i + 1)
          i = i + 2
        elseif c == '"' then
          break
        else
          parts[#parts + 1] = c
          i = i + 1
        end
      end
      value = table_concat(parts)
      position = i + 1
    else
      local _, value_end, token = string_find(text, "^([^%s,]*)", position)
      value = token
      position = value_end + 1
    end
    params[string_lower(name)] = value
  end
end
_M.parse_params = parse_params

-- The WWW-Authenticate value (the realm is checked to hold no quote or backslash when pushed).
function _M.challenge(realm, key, stale)
  return 'Digest algorithm="MD5", qop="auth", realm="' .. realm .. '", nonce="' .. nonce(key) .. '"'
    .. (stale and ", stale=true" or "")
end

-- Whether `header` (the Authorization value) proves a password of `entries`
-- for `realm`, this method and URI; second result true when only the nonce was stale.
function _M.verify(header, realm, entries, key, method, request_uri)
  if header == nil or #header > MAX_HEADER_LENGTH or string_lower(string_sub(header, 1, 7)) ~= "digest " then
    return false
  end
  local params = parse_params(string_sub(header, 8))
  if params == nil then
    return false
  end
  local user, response, nonce_value = params.username, params.response, params.nonce
  local nc, cnonce, uri = params.nc, params.cnonce, params.uri
  if user == nil or response == nil or nonce_value == nil or nc == nil or cnonce == nil or uri == nil then
    return false
  end
  if params.realm ~= realm or params.qop ~= "auth" or (params.algorithm ~= nil and string_lower(params.algorithm) ~= "md5") then
    return false
  end
  if uri ~= request_uri then
    return false
  end
  local ha1 = entries[user .. ":" .. realm]
  if ha1 == nil then
    return false
  end
  local expected = md5(table_concat({ string_lower(ha1), nonce_value, nc, cnonce, "auth", md5(method .. ":" .. uri) }, ":"))
  if not equal(expected, string_lower(response)) then
    return false
  end
  local freshness = check_nonce(nonce_value, key)
  if freshness == "valid" then
    return true
  end
  return false, freshness == "stale"
end

return _M
