-- The redirect of plain HTTP to HTTPS (ssl-redirect, force-ssl-redirect) of
-- a proxied location, from the location's rewrite_by_lua_block
-- (src/dataplane/nginx/render/renderHttpsRedirect.ts).
--
-- Why not `if ($pass_access_scheme = http) { return ...; }`: nginx gives every
-- `if` block a location configuration of its own (one structure per module,
-- about 10 KiB), and the master holds each for the life of the
-- configuration: at 10,000 synthetic Ingresses, 20,004 of them were 194 MiB
-- of nginx's 1,041 MiB (docs/scale.md). The Lua block costs a location
-- nothing but the code's cache key.
--
-- Where it runs: lua-nginx-module runs a location's rewrite_by_lua after the
-- rewrite module's directives, as ingress-nginx's redirect (lua_ingress.lua)
-- runs there; the renderer leaves the `if` where one of those could answer or
-- change the request after this point, so the same requests are redirected
-- as with the `if`, before any access check. The location's `set`s have run,
-- so the access log and the request metrics name its Ingress and Service.
--
-- ngx.redirect answers as `return` does: nginx's own page for the status,
-- the Location as given (test/dataplane/nginx/render/renderNginxConf.live.test.ts
-- compares the two).
--   rewrite_by_lua_block { portico_https_redirect.rewrite({ code = 308, port = 443, preserve_trailing_slash = true }) }
-- `port` only with use-port-in-redirects; `preserve_trailing_slash` only with
-- that annotation (else the request URI without one trailing `/`, the http
-- block's $redirect_request_uri, as ingress-nginx).
local ngx = ngx
local var = ngx.var

local _M = {}

function _M.rewrite(options)
  -- $pass_access_scheme: the scheme, or X-Forwarded-Proto with use-forwarded-headers.
  if var.pass_access_scheme ~= "http" then
    return
  end
  local uri = options.preserve_trailing_slash and var.request_uri or var.redirect_request_uri
  local port = options.port and (":" .. options.port) or ""
  return ngx.redirect("https://" .. var.redirect_host .. port .. uri, options.code)
end

return _M
