-- Handlers of the configuration server's endpoints (a unix socket only the controller reaches):
--   location = /configuration/backends     { content_by_lua_block { portico_configuration.handle_backends() } }
--   location = /configuration/certificates { content_by_lua_block { portico_configuration.handle_certificates() } }
--   location = /configuration/routes       { content_by_lua_block { portico_configuration.handle_routes() } }
--   location = /configuration/authentication { content_by_lua_block { portico_configuration.handle_authentication() } }
--   location = /is-dynamic-lb-initialized  { content_by_lua_block { portico_configuration.handle_initialized() } }
-- POST stores a document (validated first; 400 leaves the stored one as it
-- was), GET returns the stored one (certificates without their PEMs: a
-- private key is never served). Workers pick a new document up on their
-- next request or handshake (see state.lua).
local state = require("portico.state")
local backends = require("portico.backends")
local certificate = require("portico.certificate")
local routes = require("portico.routes")
local authentication = require("portico.authentication")
local cjson = require("cjson.safe")

local ngx = ngx
local ngx_req = ngx.req
local ngx_log = ngx.log
local io_open = io.open
local tostring = tostring
local pairs = pairs
local table_sort = table.sort

local _M = {}

local function respond(status, message)
  ngx.status = status
  ngx.header["Content-Type"] = "text/plain"
  ngx.say(message)
end

local function read_request_body()
  ngx_req.read_body()
  local body = ngx_req.get_body_data()
  if body ~= nil then
    return body
  end
  -- Larger than client_body_buffer_size: nginx buffered it to a file.
  local path = ngx_req.get_body_file()
  if path == nil then
    return nil, "the request has no body"
  end
  local file, err = io_open(path, "rb")
  if file == nil then
    return nil, "cannot read the buffered request body: " .. tostring(err)
  end
  body = file:read("*a")
  file:close()
  return body
end

-- What GET shows of a document: `shown(body)`, or the body itself.
local function handle_document(name, decode, shown)
  local method = ngx_req.get_method()
  if method == "GET" then
    local body = state.read(name)
    if body == nil then
      return respond(404, "no " .. name .. " were pushed yet")
    end
    ngx.status = 200
    ngx.header["Content-Type"] = "application/json"
    ngx.print(shown and shown(body) or body)
    return
  end
  if method ~= "POST" then
    ngx.header["Allow"] = "GET, POST"
    return respond(405, "use GET or POST")
  end

  local body, err = read_request_body()
  if body == nil then
    return respond(400, err)
  end
  local decoded
  decoded, err = decode(body)
  if decoded == nil then
    return respond(400, "invalid " .. name .. ": " .. err)
  end
  local version
  version, err = state.write(name, body)
  if version == nil then
    ngx_log(ngx.ERR, "cannot store ", name, " (", #body, " bytes): ", err)
    return respond(500, "cannot store " .. name .. " (" .. #body .. " bytes): " .. tostring(err)
      .. (err == "no memory" and "; lua_shared_dict " .. state.DICT_NAME .. " must hold twice the largest document" or ""))
  end
  respond(201, name .. " version " .. version)
end

function _M.handle_backends()
  handle_document("backends", backends.decode)
end

-- The stored certificates document with each PEM (certificate and private
-- key) replaced by the list of ids: what is served, never the key material.
local function certificate_names(body)
  local document = cjson.decode(body) -- stored only after decode() accepted it
  local ids = {}
  for id in pairs(document.certificates) do
    ids[#ids + 1] = id
  end
  table_sort(ids)
  document.certificates = ids
  return cjson.encode(document)
end

function _M.handle_certificates()
  handle_document("certificates", certificate.decode, certificate_names)
end

function _M.handle_routes()
  handle_document("routes", routes.decode)
end

-- GET shows each user table as its number of users: a password hash is never served.
function _M.handle_authentication()
  handle_document("authentication", authentication.decode, authentication.shown)
end

-- The controller's health check: has the data plane been given its backends?
function _M.handle_initialized()
  local version = state.version("backends")
  if version == nil or version == 0 then
    return respond(404, "backends were not pushed yet")
  end
  respond(200, "backends version " .. version)
end

return _M
