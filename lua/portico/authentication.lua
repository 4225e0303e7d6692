-- Basic and digest authentication (auth-type) in the access phase:
--   access_by_lua_block { portico_authentication.access({ key = 123456789 }) }
-- in the locations that ask for it, and only there. nginx.conf names only the
-- location's key; the users and their hashes come from the pushed document
-- (configuration server, POST /configuration/authentication), never from a file:
--   { "locations": { "<key>": { "type": "basic" | "digest", "realm": "...", "users": "<id>" } },
--     "users": { "<id>": { "<user>" (basic) or "<user>:<realm>" (digest): "<hash or HA1>" } } }
-- A key the document lacks (its Secret became unusable) answers 503, never
-- lets the request through. Success ends the access phase with ngx.OK, which
-- nginx's `satisfy any` counts as access granted, like a matching `allow`.
local cjson = require("cjson.safe")
local lrucache = require("resty.lrucache")
local state = require("portico.state")
local password_hash = require("portico.password_hash")
local digest_auth = require("portico.digest_auth")

local ngx = ngx
local ngx_var = ngx.var
local ngx_exit = ngx.exit
local ngx_log = ngx.log
local ngx_req = ngx.req
local decode_base64 = ngx.decode_base64
local hmac_sha1 = ngx.hmac_sha1
local ERR = ngx.ERR
local WARN = ngx.WARN
local type = type
local pairs = pairs
local tonumber = tonumber
local tostring = tostring
local string_find = string.find
local string_sub = string.sub
local string_lower = string.lower
local string_match = string.match
local io_open = io.open

local _M = {}

local DOCUMENT = "authentication"
local VERSION_KEY = state.version_key(DOCUMENT)
-- What a realm may hold (auth-realm's own characters): it is written between quotes in WWW-Authenticate.
local REALM = "^[%w%-%._~/: ]*$"

-- Successful checks of costly hashes (apr1 and crypt's) per worker: bcrypt at
-- cost 10 takes 50+ ms of the worker's CPU (a busy machine: 570 ms), apr1
-- milliseconds, a cache hit ~20 µs; a client sending the same credentials on
-- every request would otherwise pay the hash each time. Keyed by the users id
-- (new with every Secret edit), the user and an HMAC of the password under a
-- per-process random key, so no password or fast hash of it is kept.
local CACHE_SIZE = 1000
local cache = lrucache.new(CACHE_SIZE)
local cache_key_secret
do
  local file = io_open("/dev/urandom", "rb")
  if file == nil then
    error("cannot read /dev/urandom for the authentication cache key")
  end
  cache_key_secret = file:read(32)
  file:close()
end

-- Worker-local view of the document, rebuilt when authentication_version moves.
local synced_version = nil
local locations = {} -- key (number) -> { type, realm, entries }

-- Returns key (number) -> { type, realm, users = id, entries }, or nil and a message.
function _M.decode(body)
  local document, err = cjson.decode(body)
  if document == nil then
    return nil, "not JSON: " .. tostring(err)
  end
  if type(document) ~= "table" or type(document.locations) ~= "table" or type(document.users) ~= "table" then
    return nil, 'expected an object with "locations" and "users"'
  end
  for id, entries in pairs(document.users) do
    local problem = state.string_map_error(entries, 'users["' .. tostring(id) .. '"]')
    if problem then
      return nil, problem
    end
  end
  local decoded = {}
  for key, location in pairs(document.locations) do
    local number = type(key) == "string" and string_match(key, "^%d+$") and tonumber(key)
    if not number then
      return nil, 'locations: "' .. tostring(key) .. '" is not a decimal key'
    end
    if type(location) ~= "table" or (location.type ~= "basic" and location.type ~= "digest") then
      return nil, 'locations["' .. key .. '"].type must be "basic" or "digest"'
    end
    if type(location.realm) ~= "string" or not string_find(location.realm, REALM) then
      return nil, 'locations["' .. key .. '"].realm must be letters, digits, spaces and - . _ ~ / :'
    end
    local entries = type(location.users) == "string" and document.users[location.users]
    if not entries then
      return nil, 'locations["' .. key .. '"].users must name an entry of "users"'
    end
    decoded[number] = { type = location.type, realm = location.realm, users = location.users, entries = entries }
  end
  return decoded
end

-- What GET shows: the document with each user table replaced by its users' count; never a hash.
function _M.shown(body)
  local document = cjson.decode(body) -- stored only after decode() accepted it
  local counts = {}
  for id, entries in pairs(document.users) do
    local count = 0
    for _ in pairs(entries) do
      count = count + 1
    end
    counts[id] = count
  end
  document.users = counts
  return cjson.encode(document)
end

local function sync()
  local moved, body, body_version = state.moved(DOCUMENT, VERSION_KEY, synced_version)
  if not moved then
    return
  end
  synced_version = body_version
  if body == nil then
    locations = {}
    return
  end
  local decoded, err = _M.decode(body)
  if decoded == nil then
    -- The endpoint stores only documents decode() accepted; this would be a bug, and serving nothing is the safe side.
    ngx_log(ERR, "authentication version ", body_version, " is unusable, every authenticated location answers 503: ", err)
    locations = {}
    return
  end
  locations = decoded
end

local function basic_credentials(header)
  if header == nil or string_lower(string_sub(header, 1, 6)) ~= "basic " then
    return nil
  end
  local decoded = decode_base64(string_match(string_sub(header, 7), "^%s*(.-)%s*$"))
  if decoded == nil then
    return nil
  end
  local colon = string_find(decoded, ":", 1, true)
  if colon == nil then
    return nil
  end
  return string_sub(decoded, 1, colon - 1), string_sub(decoded, colon + 1)
end

local function basic_allows(location, header)
  local user, password = basic_credentials(header)
  if user == nil then
    return false
  end
  local hash = location.entries[user]
  if hash == nil then
    return false
  end
  if not password_hash.is_costly(hash) then
    return password_hash.verify(password, hash)
  end
  local cache_key = location.users .. "\0" .. user .. "\0" .. hmac_sha1(cache_key_secret, password)
  if cache:get(cache_key) then
    return true
  end
  local ok = password_hash.verify(password, hash)
  if ok then
    cache:set(cache_key, true)
  end
  return ok
end

function _M.access(options)
  sync()
  local key = options.key
  local location = locations[key]
  if location == nil then
    -- Until the reload after an unusable Secret renders the location as `return 503` (the controller warned on the Ingress).
    ngx_log(WARN, "no users for authentication key ", key, " (its auth-secret is unusable): answering 503")
    return ngx_exit(503)
  end
  local header = ngx_var.http_authorization
  if location.type == "basic" then
    if basic_allows(location, header) then
      return ngx_exit(ngx.OK)
    end
    ngx.header["WWW-Authenticate"] = 'Basic realm="' .. location.realm .. '"'
    return ngx_exit(401)
  end
  local ok, stale = digest_auth.verify(header, location.realm, location.entries, key, ngx_req.get_method(), ngx_var.request_uri)
  if ok then
    return ngx_exit(ngx.OK)
  end
  ngx.header["WWW-Authenticate"] = digest_auth.challenge(location.realm, key, stale)
  return ngx_exit(401)
end

return _M
