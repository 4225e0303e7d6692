-- External authentication's sign-in redirect (src/dataplane/nginx/render/renderExternalAuth.ts):
-- a 401 from the auth service ends in a named location that sets $portico_auth_signin to the
-- sign-in URL up to its redirect parameter's value (`...?rd=<scheme>://<host>`); the original
-- request URI is appended escaped as a query component, so its `&` and `?` cannot add parameters
-- (ingress-nginx's $escaped_request_uri).
local ngx = ngx

local _M = {}

function _M.signin_redirect()
  return ngx.redirect(ngx.var.portico_auth_signin .. ngx.escape_uri(ngx.var.request_uri), ngx.HTTP_MOVED_TEMPORARILY)
end

return _M
