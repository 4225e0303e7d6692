-- Per-SNI certificates without reloading nginx. Two hooks, each next to a
-- static (fake) ssl_certificate, which is what a handshake keeps whenever no
-- pushed certificate applies:
--   ssl_client_hello_by_lua_block { portico_certificate.client_hello() }
-- in the default server of each TLS listener. Its OpenSSL context is the only
-- one most servers use: a server without TLS directives of its own has no
-- context (one costs nginx about 2 ms and 0.5 MiB per server at every load),
-- so its handshakes stay on the default server's, and the certificate is set
-- here, before SNI selects the server.
--   ssl_certificate_by_lua_block { portico_certificate.call() }
-- in a server with a context of its own (its own ciphers, client-certificate
-- verification, a server snippet): selecting it by SNI swaps the context, and
-- with it the certificate set by the client hello hook.
--
-- Document: { "certificates": { "<id>": "<PEM chain + key>" },
--             "servers": { "<host or *.suffix>": "<id>" }, "default": "<id>" | null }
local ssl = require("ngx.ssl")
local clienthello = require("ngx.ssl.clienthello")
local cjson = require("cjson.safe")
local state = require("portico.state")

local ngx = ngx
local ngx_log = ngx.log
local ERR = ngx.ERR
local type = type
local pairs = pairs
local pcall = pcall
local tostring = tostring
local string_find = string.find
local string_sub = string.sub
local string_lower = string.lower

local _M = {}

local DOCUMENT = "certificates"
local VERSION_KEY = state.version_key(DOCUMENT)

-- Worker-local view of the document, rebuilt when certificates_version moves.
local synced_version = nil
local servers = {}  -- lower-cased host or *.suffix -> id
local pems = {}     -- id -> PEM
local default_id = nil
local parsed = {}   -- id -> { cert = cdata, key = cdata }, or false when the PEM does not parse

local null = cjson.null

-- Returns { pems, servers, default } or nil and a message. Only the shape is
-- checked: parsing every PEM here would stall the worker answering the push
-- for seconds with thousands of certificates; a PEM that does not parse is
-- logged at its first handshake, which then keeps the static certificate.
function _M.decode(body)
  local document, err = cjson.decode(body)
  if document == nil then
    return nil, "not JSON: " .. tostring(err)
  end
  if type(document) ~= "table" then
    return nil, "expected an object"
  end
  local problem = state.string_map_error(document.certificates, "certificates")
    or state.string_map_error(document.servers, "servers")
  if problem then
    return nil, problem
  end
  for id, pem in pairs(document.certificates) do
    if not string_find(pem, "-----BEGIN CERTIFICATE-----", 1, true) or not string_find(pem, "PRIVATE KEY-----", 1, true) then
      return nil, 'certificates["' .. id .. '"] must hold a PEM certificate and its private key'
    end
  end
  local by_host = {}
  for host, id in pairs(document.servers) do
    if document.certificates[id] == nil then
      return nil, 'servers["' .. host .. '"] names the unknown certificate "' .. id .. '"'
    end
    by_host[string_lower(host)] = id
  end
  local default = document.default
  if default == null then
    default = nil
  end
  if default ~= nil and (type(default) ~= "string" or document.certificates[default] == nil) then
    return nil, '"default" must be null or the id of a certificate'
  end
  return { pems = document.certificates, servers = by_host, default = default }
end

local function sync_certificates()
  local moved, body, body_version = state.moved(DOCUMENT, VERSION_KEY, synced_version)
  if not moved then
    return
  end
  if body == nil then
    servers, pems, default_id, parsed = {}, {}, nil, {}
    synced_version = body_version
    return
  end
  local decoded, err = _M.decode(body)
  if decoded == nil then
    ngx_log(ERR, "certificates version ", body_version, " is unusable, keeping the previous ones: ", err)
    synced_version = body_version
    return
  end
  -- Keep what was parsed for unchanged PEMs: a rotation of one certificate
  -- must not re-parse thousands (LuaJIT interns strings, so == is cheap).
  local kept = {}
  for id, pem in pairs(decoded.pems) do
    if parsed[id] ~= nil and pems[id] == pem then
      kept[id] = parsed[id]
    end
  end
  servers, pems, default_id, parsed = decoded.servers, decoded.pems, decoded.default, kept
  synced_version = body_version
end

local function certificate_id(server_name)
  if server_name ~= nil then
    server_name = string_lower(server_name)
    local id = servers[server_name]
    if id ~= nil then
      return id
    end
    -- A wildcard covers exactly one label: a.example.com matches *.example.com, a.b.example.com does not.
    local dot = string_find(server_name, ".", 1, true)
    if dot ~= nil then
      id = servers["*" .. string_sub(server_name, dot)]
      if id ~= nil then
        return id
      end
    end
  end
  return default_id
end

local function parse(id)
  local pem = pems[id]
  local cert, err = ssl.parse_pem_cert(pem)
  if cert == nil then
    ngx_log(ERR, "certificate ", id, ": cannot parse the certificate chain: ", err)
    return false
  end
  local key
  key, err = ssl.parse_pem_priv_key(pem)
  if key == nil then
    ngx_log(ERR, "certificate ", id, ": cannot parse the private key: ", err)
    return false
  end
  return { cert = cert, key = key }
end

local function select_certificate(server_name)
  sync_certificates()
  local id = certificate_id(server_name)
  if id == nil then
    return -- the static certificate
  end
  local entry = parsed[id]
  if entry == nil then
    entry = parse(id)
    parsed[id] = entry -- false too: a broken PEM is logged once per push, not per handshake
  end
  if not entry then
    return
  end
  -- Nothing above touched the connection, so every failure so far keeps the
  -- static certificate; past clear_certs there is no way back to it.
  local ok, err = ssl.clear_certs()
  if not ok then
    ngx_log(ERR, "certificate ", id, ": clear_certs: ", err)
    return
  end
  ok, err = ssl.set_cert(entry.cert)
  if not ok then
    ngx_log(ERR, "certificate ", id, " for ", tostring(server_name), ": set_cert: ", err)
    return
  end
  ok, err = ssl.set_priv_key(entry.key)
  if not ok then
    ngx_log(ERR, "certificate ", id, " for ", tostring(server_name), ": set_priv_key: ", err)
  end
end

-- A Lua error here would abort the handshake; log it and keep the static certificate instead.
local function select_or_log(server_name)
  local ok, err = pcall(select_certificate, server_name)
  if not ok then
    ngx_log(ERR, "certificate selection failed, using the static certificate: ", tostring(err))
  end
end

function _M.client_hello()
  -- SNI is not parsed yet in this phase; read it from the ClientHello (nil without SNI).
  local ok, server_name = pcall(clienthello.get_client_hello_server_name)
  select_or_log(ok and server_name or nil)
end

function _M.call()
  select_or_log(ssl.server_name()) -- nil without SNI
end

return _M
