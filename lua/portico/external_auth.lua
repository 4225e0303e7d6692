-- External authentication's Lua parts (src/dataplane/nginx/render/renderExternalAuth.ts).
--
-- signin_redirect: a 401 from the auth service ends in a named location that sets
-- $portico_auth_signin to the sign-in URL up to its redirect parameter's value
-- (`...?rd=<scheme>://<host>`); the original request URI is appended escaped as a query
-- component, so its `&` and `?` cannot add parameters (ingress-nginx's $escaped_request_uri).
--
-- check: auth-keepalive's replacement for auth_request, whose subrequests never reuse an
-- upstream connection (nginx ticket 1579). A GET subrequest without body to the internal auth
-- location $portico_auth_path (as ingress-nginx's): 2xx lets the request through, as
-- auth_request does, with the auth response's Set-Cookie in $auth_cookie and the headers named
-- in $portico_auth_response_headers in $portico_auth_response_<index>; 401 and 403 end the
-- request with that status (error_page still applies: the sign-in redirect); anything else,
-- an unreachable auth service included, is a 500.
local ngx = ngx
local capture = ngx.location.capture
local type = type
local pairs = pairs
local lower = string.lower
local gmatch = string.gmatch

local _M = {}

function _M.signin_redirect()
  return ngx.redirect(ngx.var.portico_auth_signin .. ngx.escape_uri(ngx.var.request_uri), ngx.HTTP_MOVED_TEMPORARILY)
end

-- A response header's value, its name in any case (the subrequest's header table is a plain one,
-- keyed as the auth service spelled them); of a repeated one the first, as nginx's $upstream_http_<name>.
local function header_value(headers, name)
  local value = headers[name]
  if value == nil then
    local wanted = lower(name)
    for key, candidate in pairs(headers) do
      if lower(key) == wanted then
        value = candidate
        break
      end
    end
  end
  if type(value) == 'table' then
    return value[1]
  end
  return value
end

local function copy_response_headers(headers)
  local names = ngx.var.portico_auth_response_headers
  if names == nil or names == '' then
    return
  end
  -- Names of letters, digits, '-' and '_' (validated by the model), separated by ','.
  local index = 0
  for name in gmatch(names, '[^,]+') do
    local value = header_value(headers, name)
    if value ~= nil then
      ngx.var['portico_auth_response_' .. index] = value
    end
    index = index + 1
  end
end

function _M.check(options)
  local response = capture(ngx.var.portico_auth_path, {
    method = ngx.HTTP_GET,
    body = '',
    share_all_vars = options.share_vars,
  })
  local status = response.status
  local cookie = header_value(response.header, 'Set-Cookie')
  if cookie ~= nil then
    ngx.var.auth_cookie = cookie
  end
  if status >= 200 and status < 300 then
    copy_response_headers(response.header)
    return
  end
  if status == ngx.HTTP_UNAUTHORIZED or status == ngx.HTTP_FORBIDDEN then
    return ngx.exit(status)
  end
  ngx.log(ngx.ERR, 'auth request unexpected status: ', status)
  return ngx.exit(ngx.HTTP_INTERNAL_SERVER_ERROR)
end

return _M
