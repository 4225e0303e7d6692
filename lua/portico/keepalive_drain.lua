-- While the controller reloads nginx, the workers about to retire ask their
-- HTTP/1 clients to close kept-alive connections themselves.
--
-- Why: a retiring nginx 1.22 worker closes every idle keep-alive connection
-- the moment it takes the master's quit signal (ngx_close_idle_connections,
-- then ngx_http_keepalive_handler sees c->close), without reading what is in
-- the socket. A request the client sent just then is lost: reset (close()
-- with unread data sends RST), or met by the FIN before any answer byte.
-- Clients resend only idempotent requests, so a POST fails. A connection the
-- client closes is never lost that way, so while a reload is under way
-- proxied responses say `Connection: close` and the client closes after
-- reading it.
--
-- Where: in the balancer's first attempt (portico.balancer calls
-- close_if_draining()), the one Lua every proxied request runs already. Not
-- draining, that costs one shared dict lookup; a header filter would add a
-- Lua call to every response, always. The header set there goes into the
-- response's headers before the upstream's are added to them. Answers nginx
-- gives itself (return, redirects, auth refusals) are not drained.
--
-- nginx writes its own `Connection: keep-alive` too (r->keepalive cannot be
-- changed from Lua), so such a response carries both tokens: HTTP clients
-- (llhttp in Node, curl, Go's net/http) close on "close" among them.
--
--   location = /configuration/keepalive-drain { content_by_lua_block { portico_keepalive_drain.handle() } }
-- PUT ?seconds=N starts the drain for at most N seconds (a controller that
-- dies mid-reload cannot leave it on), DELETE ends it. The flag is in the
-- shared dict, so every worker sees it, old and new (the dict outlives the
-- reload; the new workers drain too until the controller ends it).
local state = require("portico.state")

local ngx = ngx
local ngx_req = ngx.req
local ngx_var = ngx.var
local ngx_header = ngx.header
local tonumber = tonumber

local _M = {}

local KEY = "keepalive_drain"
-- A reload at 10,000 Ingresses takes tens of seconds; the controller ends the drain when it is done.
local MAX_SECONDS = 3600

local dict = ngx.shared[state.DICT_NAME]

-- balancer_by_lua, first attempt only (a retry's response is the same response).
function _M.close_if_draining()
  if not dict:get(KEY) then
    return
  end
  -- HTTP/2 has no Connection header (a client must refuse it; nginx's HTTP/2
  -- filter would send it), and its connections end with a GOAWAY. An upgrade
  -- (WebSocket) hands the connection over: its 101 says `Connection: upgrade`.
  if ngx_req.http_version() >= 2 or ngx_var.http_upgrade ~= nil then
    return
  end
  ngx_header["Connection"] = "close"
end

local function respond(status, message)
  ngx.status = status
  ngx_header["Content-Type"] = "text/plain"
  ngx.say(message)
end

function _M.handle()
  local method = ngx_req.get_method()
  if method == "DELETE" then
    dict:delete(KEY)
    return respond(200, "drain ended")
  end
  if method ~= "PUT" then
    ngx_header["Allow"] = "PUT, DELETE"
    return respond(405, "use PUT or DELETE")
  end
  local seconds = tonumber(ngx_var.arg_seconds)
  if seconds == nil or seconds ~= seconds or seconds <= 0 or seconds > MAX_SECONDS then
    return respond(400, "seconds must be a number in (0, " .. MAX_SECONDS .. "]")
  end
  local ok, err = dict:safe_set(KEY, true, seconds)
  if not ok then
    return respond(500, "cannot store the drain: " .. err)
  end
  return respond(200, "draining")
end

return _M
