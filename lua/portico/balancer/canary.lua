-- Canary routing (the canary-* annotations): whether a request to a primary
-- backend goes to its canary, decided as ingress-nginx's
-- route_to_alternative_balancer() does, in its order: affinity, header,
-- cookie, weight.
local ngx = ngx
local ngx_var = ngx.var
local ngx_log = ngx.log
local ERR = ngx.ERR
local string_lower = string.lower
local string_gsub = string.gsub
local math_random = math.random
local ngx_re_find = ngx.re.find

local _M = {}

-- The policy as choose() reads it, from a backend's `canary` field: variable
-- names computed once per push. nil without a canary.
function _M.prepare(backend)
  local canary = backend.canary
  if canary == nil then
    return nil
  end
  local policy = {
    backend = canary.backend,
    weight = canary.weight,
    weight_total = canary.weightTotal,
    header_value = canary.headerValue,
    header_pattern = canary.headerPattern,
  }
  if canary.header ~= nil then
    policy.header_var = "http_" .. string_gsub(string_lower(canary.header), "-", "_")
  end
  if canary.cookie ~= nil then
    policy.cookie_var = "cookie_" .. canary.cookie
  end
  if policy.header_pattern ~= nil then
    local _, _, err = ngx_re_find("", policy.header_pattern, "jo")
    if err ~= nil then
      -- logged once per worker per push; requests carrying the header then stay on the primary, as in ingress-nginx
      ngx_log(ERR, "backend ", backend.name, ": canary headerPattern \"", policy.header_pattern,
        "\" is not a valid regular expression: ", err)
      policy.header_pattern_invalid = true
    end
  end
  return policy
end

local function affinitized(balancer)
  return balancer.is_affinitized ~= nil and balancer:is_affinitized()
end

-- `canary`: the canary backend's balancer (nil when it has no usable
-- endpoint). Returns it, or nil to stay on `primary`.
function _M.choose(policy, primary, canary)
  if affinitized(primary) then
    return nil -- a session on the primary stays there
  end
  if canary == nil then
    return nil -- not pushed, or no usable endpoint
  end
  if affinitized(canary) then
    return canary
  end
  local header_var = policy.header_var
  if header_var ~= nil then
    local value = ngx_var[header_var]
    if value ~= nil then
      if policy.header_value ~= nil then
        if value == policy.header_value then
          return canary
        end
      elseif policy.header_pattern ~= nil then
        if policy.header_pattern_invalid then
          return nil
        end
        if ngx_re_find(value, policy.header_pattern, "jo") then
          return canary
        end
      elseif value == "always" then
        return canary
      elseif value == "never" then
        return nil
      end
    end
  end
  local cookie_var = policy.cookie_var
  if cookie_var ~= nil then
    local value = ngx_var[cookie_var]
    if value == "always" then
      return canary
    elseif value == "never" then
      return nil
    end
  end
  local weight = policy.weight
  if weight > 0 and math_random(policy.weight_total) <= weight then
    return canary
  end
  return nil
end

return _M
